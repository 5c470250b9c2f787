//! Typed inputs: controls, applied joint forces, body wrenches, mocap poses and equality
//! activation. Checked in pure Rust (field, object id, length, finite values, the 0/1 domain of
//! equality activation) before anything is written; written under the native lock as one world
//! mutation. They are all part of `mjSTATE_INTEGRATION`, so checkpoints carry them, and the
//! world document serves and accepts the same fields.

use crate::doc::{pointer_index, pointer_push};
use crate::native::fields::{Class, Field};
use crate::native::{Dims, Layout, Mujoco};
use crate::outcome::{Reason, Refusal};

/// A checked input: `values` go to the whole field (`id` None) or to one object's slice.
#[derive(Clone, Copy, Debug)]
pub struct Input<'a> {
    pub field: Field,
    pub id: Option<usize>,
    pub values: &'a [f64],
}

/// The input fields, in the order the world document serves them.
pub const FIELDS: [Field; 6] = {
    use crate::native::fields::Field::*;
    [
        Ctrl,
        QfrcApplied,
        XfrcApplied,
        MocapPos,
        MocapQuat,
        EqActive,
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
    let f = input_field(field, &field_ptr)?;
    let id = object_id(f, id, values.len(), dims, ptr, &values_ptr)?;
    check_values(f, values, &values_ptr)?;
    Ok(Input {
        field: f,
        id,
        values,
    })
}

/// The field of an input: an `mjb_field`, an input, and in mjData on this engine.
fn input_field(field: i32, field_ptr: &dyn Fn() -> String) -> Result<Field, Refusal> {
    let f = Field::from_i32(field).ok_or_else(|| {
        Refusal::rejected(Reason::OutOfRange, format!("{field} is not an mjb_field"))
            .at(field_ptr())
    })?;
    if f.class() != Class::Input {
        return Err(Refusal::rejected(
            Reason::ReadOnlyField,
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
            Reason::Unsupported,
            format!(
                "{} is not in mjData on this engine ({})",
                f.name(),
                crate::native::engine().version_string
            ),
        )
        .at(field_ptr()));
    }
    Ok(f)
}

/// The object an input of `n` values writes: None for the whole field (`id` -1, `n` the
/// field's length), else an object id below the field's count with `n` its width.
fn object_id(
    f: Field,
    id: i64,
    n: usize,
    dims: &Dims,
    ptr: &str,
    values_ptr: &dyn Fn() -> String,
) -> Result<Option<usize>, Refusal> {
    let total = f.len(dims);
    let width = f.input_width().expect("inputs have a width");
    Ok(match id {
        -1 => {
            if n != total {
                return Err(Refusal::rejected(
                    Reason::Dimension,
                    format!("{} has {} values; the model has {total}", f.name(), n),
                )
                .at(values_ptr()));
            }
            None
        }
        id if id >= 0 && (id as u64) < (total / width) as u64 => {
            if n != width {
                return Err(Refusal::rejected(
                    Reason::Dimension,
                    format!("one object's {} has {width} values, not {}", f.name(), n),
                )
                .at(values_ptr()));
            }
            Some(id as usize)
        }
        id => {
            return Err(Refusal::rejected(
                Reason::OutOfRange,
                format!(
                    "id {id} is not -1 (whole field) or an object id below {} for {}",
                    total / width,
                    f.name()
                ),
            )
            .at(pointer_push(ptr, "id")))
        }
    })
}

/// An input's values: finite, and for equality activation exactly 0 or 1.
fn check_values(f: Field, values: &[f64], values_ptr: &dyn Fn() -> String) -> Result<(), Refusal> {
    if let Some(i) = values.iter().position(|x| !x.is_finite()) {
        return Err(Refusal::rejected(
            Reason::NotFinite,
            format!("{}[{i}] is not finite", f.name()),
        )
        .at(pointer_index(&values_ptr(), i)));
    }
    if f == Field::EqActive {
        // Exactly +0 or 1, as in a checkpoint: not -0, nothing a byte conversion would bend.
        if let Some(i) = values
            .iter()
            .position(|x| !(x.to_bits() == 0f64.to_bits() || *x == 1.0))
        {
            return Err(Refusal::rejected(
                Reason::EqActiveDomain,
                format!("equality activation {} must be exactly 0 or 1", values[i]),
            )
            .at(pointer_index(&values_ptr(), i)));
        }
    }
    Ok(())
}

/// Write checked inputs (the caller holds the native lock and checked them against this pair's
/// dimensions). Returns the mask of the fields written.
pub fn apply(mj: &mut Mujoco, inputs: &[Input]) -> u64 {
    let mut written = 0;
    for i in inputs {
        let range = target(i);
        if i.field == Field::EqActive {
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

/// Write inputs into a state vector laid out as `layout` (`mjSTATE_INTEGRATION` holds every
/// input field, `eq_active` as 0 or 1) instead of into the data.
pub fn apply_to_state(state: &mut [f64], layout: &Layout, inputs: &[Input]) {
    for i in inputs {
        let Some(at) = layout.field_offset(i.field) else {
            debug_assert!(false, "{} is not in the state", i.field.name());
            continue;
        };
        let range = target(i);
        state[at + range.start..at + range.end].copy_from_slice(i.values);
    }
}

/// The values an input writes in its field.
fn target(i: &Input) -> std::ops::Range<usize> {
    let width = i.field.input_width().expect("inputs have a width");
    let start = i.id.map_or(0, |id| id * width);
    start..start + i.values.len()
}

/// The input fields the world document serves beside `ctrl` (read under the native lock).
pub fn served(mj: &Mujoco) -> Vec<(&'static str, Vec<f64>)> {
    FIELDS[1..]
        .iter()
        .filter(|f| f.available())
        .map(|&f| {
            let v = if f == Field::EqActive {
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
