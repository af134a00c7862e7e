//! The integration tests, one binary: a module per user-visible command or stage, each
//! against real git repositories, real Python and real clients (see each module's header).

// Tests signal the servers and process groups they start (kill(2) has no std form).
#![allow(unsafe_code)]

mod add_function;
mod agent_cmd;
mod agent_replay;
mod agent_rung;
mod bad_input;
mod bench;
mod branch;
mod commit_replay;
mod common;
mod cputime;
mod curriculum;
mod env_confine;
mod env_episode;
mod env_eval;
mod env_hygiene;
mod env_mcp;
mod env_package;
mod env_reset;
mod env_server;
mod env_tamper;
mod era;
mod forkserver;
mod format;
mod gen_tasks;
mod history;
mod hostile;
mod intents;
mod intents_move;
mod intents_rename;
mod judge_findings;
mod layout;
mod merge;
mod mergiraf_rung;
mod mutate_ops;
mod onboard;
mod publish;
mod quotas;
mod refactor_rung;
mod repos;
mod resolvers;
mod sample;
mod sandbox;
mod schemas;
mod second_tier;
mod selection;
mod shards;
mod verdicts;
mod web_demo;
