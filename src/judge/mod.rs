//! The one judgement of *solves*: whether a resolved tree solves its task, the same
//! code for the ladder, the naive sides, the grader checks, `eval` and the environment's
//! reward.
//!
//! A tree solves a task when
//! - (a) gold's test files, restored over it, pass (tamper-proof: the tree's own tests
//!   never decide this part);
//! - (b) its own test modules, run with gold's `conftest.py` files and test
//!   configuration, pass, collect every test gold's do, and keep each of gold's test
//!   functions' checks (skipped when its test files equal gold's);
//! - (c) it has no static finding ([`findings`]) that gold has not.

pub(crate) mod findings;
