//! The envelope's JSON text written directly: the bytes `serde_json::to_string` writes for the
//! derived `Serialize`, with the constant keys and punctuation copied as pre-escaped chunks and
//! the call's short strings copied whole when they need no escaping. Every call's answer is an
//! envelope, and through serde every key and string goes through the escaping writer one
//! fragment at a time (about a fifth of a small call's cost). What is rare (an error, a
//! truncation, coercions) and the tool's `data` are written by serde_json itself.

use super::{Meta, Outcome, Status};
use serde::Serialize;

impl Outcome {
    /// Appends the envelope as JSON text to `out`: the same bytes as
    /// `serde_json::to_writer(out, self)`, written faster (the runtime's per-call path).
    ///
    /// # Errors
    /// A value in `data` that serde_json cannot write (a map with non-string keys cannot be in a
    /// `Value`, so in practice none).
    pub fn write_json(&self, out: &mut Vec<u8>) -> serde_json::Result<()> {
        // The opening through the message's key is one constant per status.
        out.extend_from_slice(match self.status {
            Status::Success => b"{\"status\":\"success\",\"message\":",
            Status::Partial => b"{\"status\":\"partial\",\"message\":",
            Status::Error => b"{\"status\":\"error\",\"message\":",
            Status::NeedsConfirmation => b"{\"status\":\"needs_confirmation\",\"message\":",
        });
        write_str(out, &self.message)?;
        if let Some(data) = &self.data {
            out.extend_from_slice(b",\"data\":");
            write_value(out, data)?;
        }
        if let Some(instruction) = &self.instruction {
            out.extend_from_slice(b",\"instruction\":");
            write_str(out, instruction)?;
        }
        if let Some(error) = &self.error {
            out.extend_from_slice(b",\"error\":");
            serde_json::to_writer(&mut *out, error)?;
        }
        write_meta(out, &self.meta)?;
        out.push(b'}');
        Ok(())
    }

    /// The envelope as JSON text: what `serde_json::to_string` gives, written by
    /// [`Outcome::write_json`].
    ///
    /// ```
    /// use toolwright_core::Outcome;
    /// let out = Outcome::success(serde_json::json!({"n": 1})).with_message("Done.");
    /// assert_eq!(out.to_json_string().unwrap(), serde_json::to_string(&out).unwrap());
    /// ```
    ///
    /// # Errors
    /// As [`Outcome::write_json`].
    pub fn to_json_string(&self) -> serde_json::Result<String> {
        // Room for the meta and the usual short data without growing.
        let mut out = Vec::with_capacity(
            192 + self.message.len() + self.meta.tool.len() + self.meta.call_id.len(),
        );
        self.write_json(&mut out)?;
        // Only UTF-8 was written (whole `str`s, ASCII punctuation and serde_json's output).
        String::from_utf8(out).map_err(|e| serde::ser::Error::custom(e.to_string()))
    }
}

impl Meta {
    /// The meta as a JSON tree: what `serde_json::to_value` gives, built directly (the MCP
    /// server's `structuredContent` holds one per call).
    ///
    /// ```
    /// use toolwright_core::Meta;
    /// let meta = Meta { attempt: 1, retries: 2, ..Meta::default() };
    /// assert_eq!(meta.to_json_value(), serde_json::to_value(&meta).unwrap());
    /// ```
    pub fn to_json_value(&self) -> serde_json::Value {
        use serde_json::Value;
        let rare = |v: serde_json::Result<Value>| v.unwrap_or(Value::Null);
        let mut m = serde_json::Map::with_capacity(8);
        m.insert("tool".into(), Value::String(self.tool.as_ref().to_owned()));
        m.insert(
            "call_id".into(),
            Value::String(self.call_id.as_ref().to_owned()),
        );
        m.insert("duration_ms".into(), Value::from(self.duration_ms));
        m.insert("attempt".into(), Value::from(self.attempt));
        m.insert("attempts_left".into(), Value::from(self.attempts_left));
        m.insert("replayed".into(), Value::Bool(self.replayed));
        let truncated = self
            .truncated
            .as_ref()
            .map_or(Value::Null, |t| rare(serde_json::to_value(t)));
        m.insert("truncated".into(), truncated);
        if !self.coerced.is_empty() {
            m.insert("coerced".into(), rare(serde_json::to_value(&self.coerced)));
        }
        if let Some(f) = &self.fallback_from {
            m.insert("fallback_from".into(), Value::String(f.clone()));
        }
        if let Some(a) = &self.approval_id {
            m.insert("approval_id".into(), Value::String(a.clone()));
        }
        if self.retries != 0 {
            m.insert("retries".into(), Value::from(self.retries));
        }
        if self.still_running {
            m.insert("still_running".into(), Value::Bool(true));
        }
        Value::Object(m)
    }
}

/// `,"meta":{…}`.
fn write_meta(out: &mut Vec<u8>, meta: &Meta) -> serde_json::Result<()> {
    out.extend_from_slice(b",\"meta\":{\"tool\":");
    write_str(out, &meta.tool)?;
    out.extend_from_slice(b",\"call_id\":");
    write_str(out, &meta.call_id)?;
    out.extend_from_slice(b",\"duration_ms\":");
    write_u64(out, meta.duration_ms);
    out.extend_from_slice(b",\"attempt\":");
    write_u64(out, u64::from(meta.attempt));
    out.extend_from_slice(b",\"attempts_left\":");
    write_u64(out, u64::from(meta.attempts_left));
    out.extend_from_slice(if meta.replayed {
        b",\"replayed\":true,\"truncated\":"
    } else {
        b",\"replayed\":false,\"truncated\":"
    });
    match &meta.truncated {
        None => out.extend_from_slice(b"null"),
        Some(t) => serde_json::to_writer(&mut *out, t)?,
    }
    if !meta.coerced.is_empty() {
        out.extend_from_slice(b",\"coerced\":");
        serde_json::to_writer(&mut *out, &meta.coerced)?;
    }
    if let Some(f) = &meta.fallback_from {
        out.extend_from_slice(b",\"fallback_from\":");
        write_str(out, f)?;
    }
    if let Some(a) = &meta.approval_id {
        out.extend_from_slice(b",\"approval_id\":");
        write_str(out, a)?;
    }
    if meta.retries != 0 {
        out.extend_from_slice(b",\"retries\":");
        write_u64(out, u64::from(meta.retries));
    }
    if meta.still_running {
        out.extend_from_slice(b",\"still_running\":true");
    }
    out.push(b'}');
    Ok(())
}

/// `n` in decimal; a single digit (the usual attempt counts and durations) without the
/// formatter.
fn write_u64(out: &mut Vec<u8>, n: u64) {
    match u8::try_from(n) {
        Ok(d) if d < 10 => out.push(b'0' + d),
        _ => out.extend_from_slice(itoa::Buffer::new().format(n).as_bytes()),
    }
}

/// A tool's `data`: the usual scalars written here, anything else by serde_json (same bytes).
fn write_value(out: &mut Vec<u8>, v: &serde_json::Value) -> serde_json::Result<()> {
    use serde_json::Value;
    match v {
        Value::Null => out.extend_from_slice(b"null"),
        Value::Bool(true) => out.extend_from_slice(b"true"),
        Value::Bool(false) => out.extend_from_slice(b"false"),
        Value::String(s) => write_str(out, s)?,
        Value::Number(n) if n.is_u64() => write_u64(out, n.as_u64().unwrap_or_default()),
        _ => serde_json::to_writer(&mut *out, v)?,
    }
    Ok(())
}

/// The bytes serde_json writes as they are in a string (all but control characters, `"` and
/// `\`). (Indexed by bytes: every index is below 256.)
#[allow(clippy::indexing_slicing)]
static PLAIN: [bool; 256] = {
    let mut t = [true; 256];
    let mut b = 0;
    while b < 0x20 {
        t[b] = false;
        b += 1;
    }
    t[b'"' as usize] = false;
    t[b'\\' as usize] = false;
    t
};

/// `s` as a JSON string: copied whole between quotes when nothing in it needs escaping (the
/// usual names, ids and sentences), else escaped by serde_json.
#[inline(always)]
fn write_str(out: &mut Vec<u8>, s: &str) -> serde_json::Result<()> {
    if s.bytes().all(|b| PLAIN.get(usize::from(b)) == Some(&true)) {
        out.reserve(s.len() + 2);
        out.push(b'"');
        out.extend_from_slice(s.as_bytes());
        out.push(b'"');
        Ok(())
    } else {
        s.serialize(&mut serde_json::Serializer::new(out))
    }
}

#[cfg(test)]
mod tests {
    use crate::envelope::{Coercion, Outcome, Truncation};
    use crate::error::{ErrorCode, FieldError, Problem, ToolError};
    use crate::shared_str::SharedStr;
    use proptest::prelude::*;
    use serde_json::{Value, json};

    fn same(o: &Outcome) {
        let want = serde_json::to_string(o).unwrap();
        assert_eq!(o.to_json_string().unwrap(), want);
        let mut buf = b"prefix".to_vec();
        o.write_json(&mut buf).unwrap();
        assert_eq!(&buf[6..], want.as_bytes());
        assert_eq!(
            o.meta.to_json_value(),
            serde_json::to_value(&o.meta).unwrap()
        );
    }

    #[test]
    fn every_kind_of_envelope_is_written_as_serde_writes_it() {
        let mut err = ToolError::new(ErrorCode::Validation, "bad \"args\"\n");
        err.fields.push(FieldError::new(
            "/a",
            Problem::WrongType,
            "a must be integer",
        ));
        err.retry_after_ms = Some(40);
        let mut full = Outcome::partial(json!({"k": [1, 2.5, "x\u{1}"]}), "cut \\ short")
            .with_instruction("Use \u{7f} and é \u{2028}");
        full.meta = crate::envelope::Meta {
            tool: SharedStr::from("t\"ool"),
            call_id: SharedStr::from("id\t1"),
            duration_ms: u64::MAX,
            attempt: 3,
            attempts_left: 0,
            replayed: true,
            truncated: Some(Truncation {
                total: 10,
                showing: 2,
                path: "/k".into(),
            }),
            coerced: vec![Coercion {
                path: "/n".into(),
                from: json!("5"),
                to: json!(5),
            }],
            fallback_from: Some("primary".into()),
            approval_id: Some("approve-x".into()),
            retries: 2,
            still_running: true,
        };
        let outs = [
            Outcome::success(json!(1)),
            Outcome::success(Value::Null).with_message("noop_small succeeded."),
            Outcome::from_error(err),
            Outcome::from_error(ToolError::not_found("No such user.", "List users first.")),
            Outcome::needs_confirmation(json!({"path": "x"}), "approve-x"),
            full,
        ];
        for o in &outs {
            same(o);
        }
    }

    fn text() -> impl Strategy<Value = String> {
        prop_oneof![
            "[a-z_. ]{0,12}",
            any::<String>(),
            prop::collection::vec(
                prop::sample::select(vec!['"', '\\', '\n', '\u{0}', 'a', 'é', '\u{7f}']),
                0..8
            )
            .prop_map(|v| v.into_iter().collect()),
        ]
    }

    proptest! {
        #[test]
        fn any_strings_and_numbers_are_written_as_serde_writes_them(
            message in text(), tool in text(), call_id in text(), instruction in proptest::option::of(text()),
            duration_ms in any::<u64>(), attempt in any::<u32>(), attempts_left in any::<u32>(),
            retries in any::<u32>(), replayed in any::<bool>(), still_running in any::<bool>(),
            approval in proptest::option::of(text()), fallback in proptest::option::of(text()),
            data in proptest::option::of(prop_oneof![
                text().prop_map(Value::String),
                any::<u64>().prop_map(Value::from),
                any::<i64>().prop_map(Value::from),
                any::<f64>().prop_map(Value::from),
                any::<bool>().prop_map(Value::Bool),
            ]),
            error in proptest::option::of(text()),
        ) {
            let mut o = match error {
                Some(m) => Outcome::from_error(ToolError::internal(m)),
                None => Outcome::success(data.unwrap_or(Value::Null)),
            }
            .with_message(message);
            o.instruction = instruction;
            o.meta.tool = SharedStr::from(tool);
            o.meta.call_id = SharedStr::from(call_id);
            o.meta.duration_ms = duration_ms;
            o.meta.attempt = attempt;
            o.meta.attempts_left = attempts_left;
            o.meta.retries = retries;
            o.meta.replayed = replayed;
            o.meta.still_running = still_running;
            o.meta.approval_id = approval;
            o.meta.fallback_from = fallback;
            let want = serde_json::to_string(&o).unwrap();
            prop_assert_eq!(o.to_json_string().unwrap(), want);
            prop_assert_eq!(o.meta.to_json_value(), serde_json::to_value(&o.meta).unwrap());
        }
    }
}
