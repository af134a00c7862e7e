//! Who writes a task's commits, and when.
//!
//! A task's commits are written by a small team drawn from a built-in pool of identities
//! (one person may author commits on both sides), on increasing dates spread over days
//! after base, each at a plausible hour of its author's own time zone. Everything is drawn
//! from the task's key (its content), never the clock, so the same candidate always gets
//! the same commits and a version stays byte-reproducible. A real side (a commit of the
//! project's history) keeps its author and date; the task's other commits are placed
//! around it.

use sha2::{Digest, Sha256};

/// One person of the pool: a name, an address at a reserved example domain, and the
/// time zone their commits carry.
struct Person {
    name: &'static str,
    email: &'static str,
    /// Minutes east of UTC.
    offset: i32,
}

const fn person(name: &'static str, email: &'static str, offset: i32) -> Person {
    Person { name, email, offset }
}

/// The built-in pool: varied names, address styles and time zones.
const POOL: &[Person] = &[
    person("Maria Santos", "maria.santos@example.com", -180),
    person("James O'Connor", "jim.oconnor@example.org", 0),
    person("Wei Zhang", "zhangwei@example.net", 480),
    person("Aisha Bello", "abello@example.com", 60),
    person("Lukas Meyer", "lukas@example.org", 60),
    person("Priya Raman", "priya.raman@example.net", 330),
    person("Tomás Herrera", "therrera@example.com", -300),
    person("Emily Clarke", "emily.clarke@example.org", 0),
    person("Kenji Watanabe", "kwatanabe@example.net", 540),
    person("Olga Petrova", "olga.p@example.com", 180),
    person("Daniel Kim", "dkim@example.org", -480),
    person("Fatima Haddad", "fhaddad@example.net", 120),
    person("Sam Whitfield", "sam@example.com", -360),
    person("Ana Lima", "ana.lima@example.org", -180),
    person("Henrik Nilsson", "henrik.nilsson@example.net", 60),
    person("Grace Liu", "gliu@example.com", -420),
    person("Mateusz Nowak", "mnowak@example.org", 60),
    person("Chioma Okafor", "chioma.okafor@example.net", 60),
    person("Ravi Patel", "ravi@example.com", 0),
    person("Sophie Laurent", "sophie.laurent@example.org", 60),
    person("Diego Fernández", "dfernandez@example.net", 60),
    person("Hannah Becker", "hbecker@example.com", 60),
    person("Yusuf Demir", "ydemir@example.org", 180),
    person("Claire Dubois", "cdubois@example.net", 60),
    person("Marcus Johnson", "marcus.j@example.com", -300),
    person("Ines Costa", "ines.costa@example.org", 0),
    person("Arjun Mehta", "amehta@example.net", 330),
    person("Nora Halvorsen", "nora@example.com", 60),
    person("Pavel Novak", "pavel.novak@example.org", 60),
    person("Lena Fischer", "lfischer@example.net", 60),
    person("Ethan Brooks", "ebrooks@example.com", -240),
    person("Mei Tanaka", "mei.tanaka@example.org", 540),
    person("Omar Khalil", "okhalil@example.net", 120),
    person("Julia Rossi", "julia.rossi@example.com", 60),
    person("Ben Carter", "bcarter@example.org", 600),
    person("Sara Johansson", "sara.j@example.net", 60),
    person("Victor Almeida", "valmeida@example.com", -180),
    person("Hyun-woo Park", "hwpark@example.org", 540),
    person("Zoe Martin", "zoe.martin@example.net", 780),
    person("Andrei Popescu", "apopescu@example.com", 120),
];

/// 2022-01-03T00:00:00Z, the earliest base date.
const EARLIEST: i64 = 1_641_168_000;
/// Base dates spread over three years from [`EARLIEST`].
const SPAN_DAYS: u64 = 3 * 365;
const DAY: i64 = 86_400;

/// A commit's author (and committer): a name, an address and a time with its zone.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Stamp {
    pub(crate) name: String,
    pub(crate) email: String,
    /// Seconds since the epoch.
    pub(crate) time: i64,
    /// Minutes east of UTC.
    pub(crate) offset: i32,
}

/// Every commit's stamp: base, each side's commits in order, and gold (the merge).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Timeline {
    pub(crate) base: Stamp,
    pub(crate) ours: Vec<Stamp>,
    pub(crate) theirs: Vec<Stamp>,
    pub(crate) gold: Stamp,
}

/// A deterministic stream of numbers drawn from a key.
struct Draw {
    key: Vec<u8>,
    counter: u64,
}

impl Draw {
    fn new(key: &str) -> Draw {
        Draw { key: key.as_bytes().to_vec(), counter: 0 }
    }

    /// A number in `0..n` (`n > 0`).
    fn below(&mut self, n: u64) -> u64 {
        let mut hasher = Sha256::new();
        hasher.update(b"authorship|");
        hasher.update(&self.key);
        hasher.update(self.counter.to_le_bytes());
        self.counter += 1;
        let digest = hasher.finalize();
        u64::from_le_bytes(digest[..8].try_into().expect("8 bytes")) % n
    }

    /// Whether a one-in-`n` chance came up.
    fn one_in(&mut self, n: u64) -> bool {
        self.below(n) == 0
    }
}

/// The stamps of a task whose key is `key`, with `commits` commits on ours and on theirs
/// (each at least 1); `real` holds a side's real stamp where that side is one real commit
/// (its author and date kept as the history has them; only a side's last commit is real).
pub(crate) fn timeline(key: &str, commits: [usize; 2], real: [Option<&Stamp>; 2]) -> Timeline {
    let mut draw = Draw::new(key);
    let team = team(&mut draw);
    let member = |who: usize| &POOL[team[who]];
    // Each side has its own main developer; a teammate sometimes writes one of its commits.
    let ours_dev = 0;
    let theirs_dev = 1;
    let base_time = match real.iter().flatten().map(|r| r.time).min() {
        // Base shortly before the real commit, so every drawn date falls around it.
        Some(real_time) => real_time - (2 + draw.below(5) as i64) * DAY,
        None => EARLIEST + draw.below(SPAN_DAYS) as i64 * DAY,
    };
    let base_person = member(draw_member(&mut draw, team.len()));
    let base = stamp_on_day(&mut draw, base_person, base_time, base_time - DAY);
    let mut used: Vec<i64> = vec![base.time];
    let mut side = |draw: &mut Draw, dev: usize, count: usize, real: Option<&Stamp>| {
        let mut stamps: Vec<Stamp> = Vec::with_capacity(count);
        let mut last = base.time;
        for i in 0..count {
            let stamp = match real.filter(|_| i + 1 == count) {
                Some(real) => real.clone(),
                None => {
                    let who = if count > 1 && draw.one_in(4) { draw_member(draw, team.len()) } else { dev };
                    let day = last + draw.below(3) as i64 * DAY;
                    let mut stamp = stamp_on_day(draw, member(who), day, last);
                    while used.contains(&stamp.time) {
                        stamp.time += 1;
                    }
                    stamp
                }
            };
            last = stamp.time;
            used.push(stamp.time);
            stamps.push(stamp);
        }
        stamps
    };
    let ours = side(&mut draw, ours_dev, commits[0].max(1), real[0]);
    let theirs = side(&mut draw, theirs_dev, commits[1].max(1), real[1]);
    let latest = ours.iter().chain(&theirs).map(|s| s.time).max().unwrap_or(base.time);
    let mut gold = stamp_on_day(&mut draw, member(ours_dev), latest, latest);
    while used.contains(&gold.time) {
        gold.time += 1;
    }
    Timeline { base, ours, theirs, gold }
}

/// A team of two to four distinct people of the pool (indices), drawn from `draw`.
fn team(draw: &mut Draw) -> Vec<usize> {
    let size = 2 + draw.below(3) as usize;
    let mut team: Vec<usize> = Vec::with_capacity(size);
    while team.len() < size {
        let candidate = draw.below(POOL.len() as u64) as usize;
        if !team.contains(&candidate) {
            team.push(candidate);
        }
    }
    team
}

fn draw_member(draw: &mut Draw, size: usize) -> usize {
    draw.below(size as u64) as usize
}

/// `person`'s stamp on the day holding `day` (UTC seconds), at a working hour of their
/// own zone (08:00 to 22:59 local) and later than `after`: a later day when that day's
/// hours are past.
fn stamp_on_day(draw: &mut Draw, person: &Person, day: i64, after: i64) -> Stamp {
    let offset_seconds = i64::from(person.offset) * 60;
    let local_midnight = (day + offset_seconds).div_euclid(DAY) * DAY;
    let seconds_into_day = 8 * 3600 + draw.below(15 * 3600) as i64;
    let mut time = local_midnight + seconds_into_day - offset_seconds;
    while time <= after {
        time += DAY;
    }
    Stamp { name: person.name.to_string(), email: person.email.to_string(), time, offset: person.offset }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_same_key_gives_the_same_timeline_and_another_key_another() {
        let a = timeline("feature-refactor|pkg/a.py|f", [2, 1], [None, None]);
        assert_eq!(a, timeline("feature-refactor|pkg/a.py|f", [2, 1], [None, None]));
        assert_ne!(a, timeline("feature-refactor|pkg/a.py|g", [2, 1], [None, None]));
        assert_eq!((a.ours.len(), a.theirs.len()), (2, 1));
    }

    #[test]
    fn dates_increase_after_base_and_no_two_commits_share_a_date() {
        for i in 0..200 {
            let t = timeline(&format!("key-{i}"), [1 + i % 4, 1 + i % 3], [None, None]);
            for side in [&t.ours, &t.theirs] {
                let mut last = t.base.time;
                for stamp in side.iter() {
                    assert!(stamp.time > last, "{i}: {stamp:?} not after {last}");
                    last = stamp.time;
                }
                assert!(t.gold.time > last);
            }
            let mut times: Vec<i64> =
                std::iter::once(&t.base).chain(&t.ours).chain(&t.theirs).map(|s| s.time).collect();
            times.push(t.gold.time);
            let count = times.len();
            times.sort();
            times.dedup();
            assert_eq!(times.len(), count, "{i}: two commits share a date");
            // A working hour of the author's own zone.
            let local_hour = (t.base.time + i64::from(t.base.offset) * 60).rem_euclid(DAY) / 3600;
            assert!((8..23).contains(&local_hour), "{i}: base at local hour {local_hour}");
        }
    }

    #[test]
    fn tasks_are_written_by_varied_people_and_each_side_mostly_by_its_own_developer() {
        let mut people = std::collections::BTreeSet::new();
        let mut sides_by_two = 0;
        for i in 0..100 {
            let t = timeline(&format!("task-{i}"), [1, 1], [None, None]);
            people.insert(t.ours[0].name.clone());
            if t.ours[0].name != t.theirs[0].name {
                sides_by_two += 1;
            }
            // The merge is written by ours' developer.
            assert_eq!(t.gold.name, t.ours[0].name);
        }
        assert!(people.len() >= 25, "only {} authors over 100 tasks", people.len());
        assert_eq!(sides_by_two, 100);
    }

    #[test]
    fn a_real_side_keeps_its_author_and_date_and_base_comes_before_it() {
        let real =
            Stamp { name: "Real Dev".into(), email: "real@example.com".into(), time: 1_500_000_000, offset: -420 };
        let t = timeline("commit-replay|abc", [1, 1], [Some(&real), None]);
        assert_eq!((t.ours[0].name.as_str(), t.ours[0].time, t.ours[0].offset), ("Real Dev", 1_500_000_000, -420));
        assert!(t.base.time < real.time);
        assert!(t.theirs[0].time > t.base.time);
    }
}
