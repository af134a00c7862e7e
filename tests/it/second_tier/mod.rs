//! Second-tier tests: slow (minutes), marked `#[ignore = "second tier: ..."]`, run by CI
//! as `cargo test --profile ci --test it -- --ignored second_tier::`.

mod reproduce_under_load;
