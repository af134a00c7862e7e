//! Second-tier tests: slow (minutes), marked `#[ignore = "second tier: ..."]`, run by CI
//! after the README's test command as `cargo test --profile ci --test it -- --ignored
//! second_tier::`. Each has a fast sibling in the first tier.

mod example_patches;
mod mergiraf_install;
pub(crate) mod real_agents;
mod reproduce_under_load;
mod sample;
