//! The `mergeforge` binary: parse the command line, dispatch, map the result to an exit
//! code. Everything else lives in the library.

use std::process::ExitCode;

fn main() -> ExitCode {
    let cli = mergeforge::cli::parse();
    match mergeforge::cli::run(cli) {
        Ok(code) => code,
        Err(err) => {
            eprintln!("error: {err:#}");
            ExitCode::FAILURE
        }
    }
}
