//! A starter agent program in Rust for arena's line protocol, version 1 (docs/protocol.md).
//!
//! One JSON object per line on stdin, one answer per request on stdout.  No crates: protocol 1 writes
//! the keys of an "act" request in a fixed order (type, id, legal, observation), so the first "legal"
//! is the request's own list.  The rule: play a legal action chosen by a small generator seeded from
//! the greeting's seed (so the same seed plays the same game); in Lovat's keep (legal is empty: a rule
//! describes the choice) keep the first subset of the dealt cards, in order, whose levels sum to
//! level_sum with min_size..max_size cards (a card's level is the digit after the "L" of "L2-17").
//! eprintln! goes to the seat's log.
use std::io::{self, BufRead, Write};

/// The text just after `"key":`, if the line has it.
fn after_key<'a>(text: &'a str, key: &str) -> Option<&'a str> {
    let pattern = format!("\"{}\":", key);
    text.find(&pattern).map(|at| &text[at + pattern.len()..])
}

/// The leading integer of `text`.
fn number(text: &str) -> i64 {
    let sign = usize::from(text.starts_with('-'));
    let end = text[sign..].find(|c: char| !c.is_ascii_digit()).map_or(text.len(), |at| at + sign);
    text[..end].parse().unwrap_or(0)
}

/// The strings of the JSON list of strings at the start of `text` (card ids and actions need no escapes).
fn strings(text: &str) -> Vec<String> {
    let end = text.find(']').unwrap_or(0);
    text[1..end]
        .split(',')
        .filter_map(|item| item.trim().strip_prefix('"').and_then(|s| s.strip_suffix('"')))
        .map(String::from)
        .collect()
}

fn find_keep(levels: &[i64], i: usize, total: i64, chosen: &mut Vec<usize>, rule: (i64, usize, usize)) -> bool {
    let (target, least, most) = rule;
    if total == target && chosen.len() >= least && chosen.len() <= most {
        return true;
    }
    if i == levels.len() || total > target || chosen.len() >= most {
        return false;
    }
    chosen.push(i);
    if find_keep(levels, i + 1, total + levels[i], chosen, rule) {
        return true;
    }
    chosen.pop();
    find_keep(levels, i + 1, total, chosen, rule)
}

fn keep(observation: &str) -> Vec<String> {
    let dealt = after_key(observation, "dealt").map(strings).unwrap_or_default();
    let levels: Vec<i64> = dealt.iter().map(|card| number(&card[1..])).collect();
    let field = |key| after_key(observation, key).map(number).unwrap_or(0);
    let rule = (field("level_sum"), field("min_size") as usize, field("max_size") as usize);
    let mut chosen = Vec::new();
    if !find_keep(&levels, 0, 0, &mut chosen, rule) {
        eprintln!("no keep found among {} cards", dealt.len());
    }
    chosen.into_iter().map(|i| dealt[i].clone()).collect()
}

fn quoted(items: &[String]) -> String {
    let parts: Vec<String> = items.iter().map(|item| format!("\"{}\"", item)).collect();
    parts.join(",")
}

fn main() {
    let mut state: u64 = 1;
    let stdin = io::stdin();
    let mut out = io::stdout().lock();
    for line in stdin.lock().lines() {
        let Ok(line) = line else { break };
        if line.starts_with("{\"type\":\"hello\"") {
            state = after_key(&line, "seed").map(number).unwrap_or(1) as u64 | 1;
            writeln!(out, "{{\"type\":\"ready\"}}").unwrap();
        } else if line.starts_with("{\"type\":\"act\"") {
            let id = after_key(&line, "id").map(number).unwrap_or(0);
            let legal = after_key(&line, "legal").map(strings).unwrap_or_default();
            let action = if legal.is_empty() {
                format!("[{}]", quoted(&keep(after_key(&line, "observation").unwrap_or(&line))))
            } else {
                state ^= state << 13;
                state ^= state >> 7;
                state ^= state << 17;
                format!("\"{}\"", legal[(state % legal.len() as u64) as usize])
            };
            writeln!(out, "{{\"type\":\"action\",\"id\":{},\"action\":{}}}", id, action).unwrap();
        } else if line.starts_with("{\"type\":\"result\"") {
            writeln!(out, "{{\"type\":\"done\"}}").unwrap();
            break;
        }
        out.flush().unwrap();
    }
}
