//! On the real BFCL data (when `TOOLWRIGHT_BFCL_DIR` points at an extracted copy, see
//! scripts/fetch-bfcl.sh; skipped otherwise): every task imports, and the answer built from the
//! first acceptable value of each argument scores right, while a call to no tool and a wrong
//! value score wrong.

use serde_json::{Map, Value};
use toolwright_eval::score::{Call, score};
use toolwright_eval::{PreparedTask, bfcl};

/// One acceptable value: a dict option becomes a dict of first choices, recursively.
fn pick(v: &Value) -> Value {
    match v {
        Value::Object(m) => Value::Object(
            m.iter()
                .filter_map(|(k, opts)| {
                    let first = opts
                        .as_array()
                        .map_or(Some(opts), |a| a.iter().find(|x| x.as_str() != Some("")))?;
                    Some((k.clone(), pick(first)))
                })
                .collect(),
        ),
        Value::Array(a) if a.iter().all(Value::is_object) => {
            Value::Array(a.iter().map(pick).collect())
        }
        other => other.clone(),
    }
}

fn oracle(task: &toolwright_eval::Task) -> Vec<Call> {
    task.expected
        .iter()
        .map(|e| {
            let mut args = Map::new();
            for (k, v) in &e.arguments {
                if let Some(first) = v
                    .as_array()
                    .and_then(|a| a.iter().find(|x| x.as_str() != Some("")))
                {
                    args.insert(k.clone(), pick(first));
                }
            }
            Call::new(e.name.clone(), Value::Object(args))
        })
        .collect()
}

#[test]
#[ignore = "needs the benchmark data: TOOLWRIGHT_BFCL_DIR=$(scripts/fetch-bfcl.sh) cargo test -p toolwright-eval -- --ignored"]
fn the_expected_answers_score_right_on_the_real_data() {
    let dir = std::env::var_os("TOOLWRIGHT_BFCL_DIR").expect(
        "TOOLWRIGHT_BFCL_DIR is not set: run scripts/fetch-bfcl.sh and point it at its output",
    );
    let tasks = bfcl::load(std::path::Path::new(&dir), &[]).unwrap();
    assert!(tasks.len() > 900, "{} tasks", tasks.len());
    let mut invalid = 0;
    for t in &tasks {
        let p = PreparedTask::new(t.clone()).unwrap();
        let calls = oracle(t);
        let s = score(&p.specs, &t.expected, &calls);
        assert!(s.correct, "{}: {s:?} for {calls:?}", t.id);
        invalid += calls.iter().filter(|c| !p.is_valid(c)).count();
        if !t.is_irrelevance() {
            assert!(!score(&p.specs, &t.expected, &[]).correct, "{}", t.id);
        }
    }
    eprintln!(
        "{} tasks; {invalid} expected calls do not validate against their own (normalized) schema",
        tasks.len()
    );
}
