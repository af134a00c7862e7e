//! Where the library's `log` records go in the binary: stderr, one line each,
//! `warning: …` for warnings and errors, `note: …` for information. Records of other
//! crates are dropped; the library itself never prints.

struct Stderr;

impl log::Log for Stderr {
    fn enabled(&self, metadata: &log::Metadata) -> bool {
        metadata.level() <= log::Level::Info && metadata.target().starts_with("mergeforge")
    }

    fn log(&self, record: &log::Record) {
        if !self.enabled(record.metadata()) {
            return;
        }
        let prefix = match record.level() {
            log::Level::Error | log::Level::Warn => "warning",
            _ => "note",
        };
        eprintln!("{prefix}: {}", record.args());
    }

    fn flush(&self) {}
}

/// Sends the library's records to stderr (once; a second call changes nothing).
pub(crate) fn init() {
    if log::set_logger(&Stderr).is_ok() {
        log::set_max_level(log::LevelFilter::Info);
    }
}
