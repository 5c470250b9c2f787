//! Indented JSON for the files a package commits (reference.json, gate.json), so a review
//! sees one change per line. Scalars are printed by the library's printer (shortest
//! round-trip numbers); arrays of numbers, and short objects and arrays of scalars, stay on
//! one line.

use mjbridge::doc::Value;

const INDENT: &str = "  ";

pub fn to_pretty(v: &Value) -> String {
    let mut out = String::new();
    write(v, 0, &mut out);
    out.push('\n');
    out
}

/// An object's members at `depth`, each value printed by `member` (so a caller can splice
/// text it must not re-serialize).
pub fn object_with(members: &[(String, MemberText)], depth: usize, out: &mut String) {
    if members.is_empty() {
        out.push_str("{}");
        return;
    }
    out.push_str("{\n");
    for (i, (k, v)) in members.iter().enumerate() {
        push_indent(depth + 1, out);
        out.push_str(&Value::Str(k.clone()).to_json());
        out.push_str(": ");
        match v {
            MemberText::Value(v) => write(v, depth + 1, out),
            MemberText::Raw(raw) => out.push_str(raw),
        }
        if i + 1 < members.len() {
            out.push(',');
        }
        out.push('\n');
    }
    push_indent(depth, out);
    out.push('}');
}

/// A member's value: printed from a `Value`, or raw JSON text copied as it is.
pub enum MemberText {
    Value(Value),
    Raw(String),
}

fn push_indent(depth: usize, out: &mut String) {
    for _ in 0..depth {
        out.push_str(INDENT);
    }
}

fn is_scalar(v: &Value) -> bool {
    !matches!(v, Value::Arr(_) | Value::Obj(_))
}

/// Objects and arrays of scalars whose one-line form is at most this long stay on one line.
const INLINE_WIDTH: usize = 72;

/// The one-line form of an object or array of scalars, when it is short enough.
fn inline(v: &Value) -> Option<String> {
    let s = match v {
        Value::Arr(items) if items.iter().all(is_scalar) => format!(
            "[{}]",
            items
                .iter()
                .map(Value::to_json)
                .collect::<Vec<_>>()
                .join(", ")
        ),
        Value::Obj(fields) if fields.iter().all(|(_, v)| is_scalar(v)) => format!(
            "{{{}}}",
            fields
                .iter()
                .map(|(k, v)| format!("{}: {}", Value::Str(k.clone()).to_json(), v.to_json()))
                .collect::<Vec<_>>()
                .join(", ")
        ),
        _ => return None,
    };
    // Arrays of numbers stay on one line whatever their length (state vectors).
    let numbers =
        matches!(v, Value::Arr(items) if items.iter().all(|i| matches!(i, Value::Num(_))));
    (numbers || s.len() <= INLINE_WIDTH).then_some(s)
}

fn write(v: &Value, depth: usize, out: &mut String) {
    if let Some(one_line) = inline(v) {
        out.push_str(&one_line);
        return;
    }
    match v {
        Value::Arr(items) => {
            out.push_str("[\n");
            for (i, it) in items.iter().enumerate() {
                push_indent(depth + 1, out);
                write(it, depth + 1, out);
                if i + 1 < items.len() {
                    out.push(',');
                }
                out.push('\n');
            }
            push_indent(depth, out);
            out.push(']');
        }
        Value::Obj(fields) => {
            let members: Vec<(String, MemberText)> = fields
                .iter()
                .map(|(k, v)| (k.clone(), MemberText::Value(v.clone())))
                .collect();
            object_with(&members, depth, out);
        }
        scalar => out.push_str(&scalar.to_json()),
    }
}
