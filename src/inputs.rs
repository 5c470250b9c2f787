//! Typed inputs: controls, applied joint forces, body wrenches, mocap poses and equality
//! activation. Checked in pure Rust (field, object id, length, finite values, the 0/1 domain of
//! equality activation) before anything is written; written under the native lock as one world
//! mutation. They are all part of `mjSTATE_INTEGRATION`, so checkpoints carry them, and the
//! world document serves and accepts the same fields.

use crate::checkpoint::json::{pointer_index, pointer_push};
use crate::checkpoint::read::{Kind, Reader};
use crate::checkpoint::{self, read_numbers, unknown_field, Slot};
use crate::native::fields::{Class, Field};
use crate::native::{Dims, Mujoco};
use crate::outcome::{Reason, Refusal};
use crate::world;

/// A checked input: `values` go to the whole field (`id` None) or to one object's slice.
#[derive(Clone, Copy, Debug)]
pub struct Input<'a> {
    pub field: Field,
    pub id: Option<usize>,
    pub values: &'a [f64],
}

/// The input fields, in the order the world document serves them.
pub const FIELDS: [Field; 6] = {
    use crate::native::fields::mjb_field::*;
    [
        MJB_FIELD_CTRL,
        MJB_FIELD_QFRC_APPLIED,
        MJB_FIELD_XFRC_APPLIED,
        MJB_FIELD_MOCAP_POS,
        MJB_FIELD_MOCAP_QUAT,
        MJB_FIELD_EQ_ACTIVE,
    ]
};

/// Check one input against the model's dimensions. `ptr` is the JSON pointer of the input
/// (its values are at `ptr/values/i`, or at `ptr/i` when `values_at_ptr`).
pub fn check<'a>(
    field: i32,
    id: i64,
    values: &'a [f64],
    dims: &Dims,
    ptr: &str,
    values_at_ptr: bool,
) -> Result<Input<'a>, Refusal> {
    // Pointers are built only for a refusal: this check runs in hosts' control loops.
    let field_ptr = || {
        if values_at_ptr {
            ptr.to_owned()
        } else {
            pointer_push(ptr, "field")
        }
    };
    let values_ptr = || {
        if values_at_ptr {
            ptr.to_owned()
        } else {
            pointer_push(ptr, "values")
        }
    };
    let f = Field::from_i32(field).ok_or_else(|| {
        Refusal::rejected(
            Reason::MJB_REASON_OUT_OF_RANGE,
            format!("{field} is not an mjb_field"),
        )
        .at(field_ptr())
    })?;
    if f.class() != Class::Input {
        return Err(Refusal::rejected(
            Reason::MJB_REASON_READ_ONLY_FIELD,
            format!(
                "{} is not an input (inputs: {})",
                f.name(),
                FIELDS.map(|f| f.name()).join(", ")
            ),
        )
        .at(field_ptr()));
    }
    if !f.available() {
        return Err(Refusal::rejected(
            Reason::MJB_REASON_UNSUPPORTED,
            format!(
                "{} is not in mjData on this engine ({})",
                f.name(),
                crate::native::engine().version_string
            ),
        )
        .at(field_ptr()));
    }
    let total = f.len(dims);
    let width = f.input_width().expect("inputs have a width");
    let id = match id {
        -1 => {
            if values.len() != total {
                return Err(Refusal::rejected(
                    Reason::MJB_REASON_DIMENSION,
                    format!(
                        "{} has {} values; the model has {total}",
                        f.name(),
                        values.len()
                    ),
                )
                .at(values_ptr()));
            }
            None
        }
        id if id >= 0 && (id as u64) < (total / width) as u64 => {
            if values.len() != width {
                return Err(Refusal::rejected(
                    Reason::MJB_REASON_DIMENSION,
                    format!(
                        "one object's {} has {width} values, not {}",
                        f.name(),
                        values.len()
                    ),
                )
                .at(values_ptr()));
            }
            Some(id as usize)
        }
        id => {
            return Err(Refusal::rejected(
                Reason::MJB_REASON_OUT_OF_RANGE,
                format!(
                    "id {id} is not -1 (whole field) or an object id below {} for {}",
                    total / width,
                    f.name()
                ),
            )
            .at(pointer_push(ptr, "id")))
        }
    };
    if let Some(i) = values.iter().position(|x| !x.is_finite()) {
        return Err(Refusal::rejected(
            Reason::MJB_REASON_NOT_FINITE,
            format!("{}[{i}] is not finite", f.name()),
        )
        .at(pointer_index(&values_ptr(), i)));
    }
    if f == Field::MJB_FIELD_EQ_ACTIVE {
        // Exactly +0 or 1, as in a checkpoint: not -0, nothing a byte conversion would bend.
        if let Some(i) = values
            .iter()
            .position(|x| !(x.to_bits() == 0f64.to_bits() || *x == 1.0))
        {
            return Err(Refusal::rejected(
                Reason::MJB_REASON_EQ_ACTIVE_DOMAIN,
                format!("equality activation {} must be exactly 0 or 1", values[i]),
            )
            .at(pointer_index(&values_ptr(), i)));
        }
    }
    Ok(Input {
        field: f,
        id,
        values,
    })
}

/// Write checked inputs (the caller holds the native lock and checked them against this pair's
/// dimensions). Returns the mask of the fields written.
pub fn apply(mj: &mut Mujoco, inputs: &[Input]) -> u64 {
    let mut written = 0;
    for i in inputs {
        let width = i.field.input_width().expect("inputs have a width");
        let start = i.id.map_or(0, |id| id * width);
        let range = start..start + i.values.len();
        if i.field == Field::MJB_FIELD_EQ_ACTIVE {
            let bytes = mj.eq_active_mut().expect("checked available");
            for (b, v) in bytes[range].iter_mut().zip(i.values) {
                *b = u8::from(*v == 1.0);
            }
        } else {
            mj.field_mut(i.field)[range].copy_from_slice(i.values);
        }
        written |= i.field.bit();
    }
    written
}

/// The input fields the world document serves beside `ctrl` (read under the native lock).
pub fn served(mj: &Mujoco) -> Vec<(&'static str, Vec<f64>)> {
    FIELDS[1..]
        .iter()
        .filter(|f| f.available())
        .map(|&f| {
            let v = if f == Field::MJB_FIELD_EQ_ACTIVE {
                mj.eq_active()
                    .unwrap_or(&[])
                    .iter()
                    .map(|&b| f64::from(u8::from(b != 0)))
                    .collect()
            } else {
                mj.field(f).to_vec()
            };
            (f.name(), v)
        })
        .collect()
}

/// Inputs parsed from a partial world document, owning their values.
pub struct Owned {
    pub items: Vec<(Field, Vec<f64>)>,
}

impl Owned {
    pub fn inputs(&self) -> Vec<Input<'_>> {
        self.items
            .iter()
            .map(|(f, v)| Input {
                field: *f,
                id: None,
                values: v,
            })
            .collect()
    }
}

/// Parse and check `{"world": {<writable fields>}}` (whole arrays) against the dimensions, in
/// one streaming pass: parse errors first, then `state_hash` (read-only), unknown top-level
/// fields, a missing `world`, read-only or unknown world fields, then each input's values.
pub fn parse_world_write(bytes: &[u8], dims: &Dims) -> Result<Owned, Refusal> {
    let mut r = Reader::new(bytes)?;
    let mut state_hash = false;
    let mut unknown = None;
    let mut world: Option<Result<(), Refusal>> = None;
    let mut read_only = None;
    let mut world_unknown = None;
    let mut got: Vec<(Field, Slot<usize>, Vec<f64>)> = Vec::new();
    r.object(|r, key| match key {
        "state_hash" => {
            state_hash = true;
            r.skip()
        }
        "world" => {
            if r.kind()? != Kind::Object {
                world = Some(Err(Refusal::rejected(
                    Reason::MJB_REASON_WRONG_TYPE,
                    "expected an object",
                )
                .at("/world")));
                return r.skip();
            }
            world = Some(Ok(()));
            r.object(|r, key| {
                if world::READ_ONLY_FIELDS.contains(&key) {
                    if read_only.is_none() {
                        read_only = Some(
                            Refusal::rejected(
                                Reason::MJB_REASON_READ_ONLY_FIELD,
                                format!("world.{key} is read-only"),
                            )
                            .at(r.pointer()),
                        );
                    }
                    return r.skip();
                }
                match FIELDS.iter().find(|f| f.name() == key) {
                    Some(&f) => {
                        // Read at most one more than the model has: enough to refuse a wrong
                        // length, never more memory than the model's own arrays.
                        let mut buf = Vec::new();
                        let n = read_numbers(r, &mut buf, f.len(dims) + 1)?;
                        got.push((f, n, buf));
                        Ok(())
                    }
                    None => unknown_field(r, key, &mut world_unknown),
                }
            })
        }
        _ => unknown_field(r, key, &mut unknown),
    })?;
    r.finish()?;
    if state_hash {
        return Err(Refusal::rejected(
            Reason::MJB_REASON_READ_ONLY_FIELD,
            "state_hash is computed by the bridge",
        )
        .at("/state_hash"));
    }
    if let Some(u) = unknown {
        return Err(u);
    }
    match world {
        None => return Err(checkpoint::missing("", "world")),
        Some(w) => w?,
    }
    if let Some(r) = read_only.or(world_unknown) {
        return Err(r);
    }
    let mut items = Vec::with_capacity(got.len());
    // Judged in the order the inputs are served, so that a refusal names the same field
    // whatever order the host wrote them in.
    got.sort_by_key(|(f, _, _)| FIELDS.iter().position(|g| g == f));
    for (f, n, values) in got {
        let p = pointer_push("/world", f.name());
        let count = n.get()?;
        if count != values.len() {
            return Err(Refusal::rejected(
                Reason::MJB_REASON_DIMENSION,
                format!(
                    "{} has {count} values; the model has {}",
                    f.name(),
                    f.len(dims)
                ),
            )
            .at(p));
        }
        // Finite by construction: the reader refuses non-finite numbers.
        check(f as i32, -1, &values, dims, &p, true)?;
        items.push((f, values));
    }
    Ok(Owned { items })
}
