//! Number printing is exactly ECMAScript's `Number::toString` (the form RFC 8785 requires),
//! checked against a real JavaScript engine (node) on a large random sample plus every layout
//! boundary, subnormals and both zeros.

#[path = "common/toolchain.rs"]
mod toolchain;

use mjbridge::doc::print::write_f64;
use std::io::Write;
use std::process::{Command, Stdio};

fn sample() -> Vec<f64> {
    let mut xs = vec![
        0.0,
        -0.0,
        5e-324,
        -5e-324,
        f64::MIN_POSITIVE,
        f64::MAX,
        f64::MIN,
    ];
    // Around every power of ten (1e21 and 1e-7 switch ECMAScript's layout), both signs.
    for e in -330..=310 {
        let p = 10f64.powi(e);
        for x in [p, -p, p * 1.5, p * 9.999999999999999] {
            if x.is_finite() {
                xs.extend([x, f64::from_bits(x.to_bits() + 1)]);
                if x.to_bits() > 1 {
                    xs.push(f64::from_bits(x.to_bits() - 1));
                }
            }
        }
    }
    // Ties between two shortest digit strings (x.25 at 2^50..2^51), which must go to even.
    for k in 0..1000u64 {
        xs.push(1_125_899_906_842_624.0 + 0.25 + k as f64);
    }
    let mut state = 0x2545_F491_4F6C_DD1Du64;
    let mut next = || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    for _ in 0..500_000 {
        // Random bit patterns: every exponent, subnormals included.
        let x = f64::from_bits(next());
        if x.is_finite() {
            xs.push(x);
        }
        // Values like a simulation's: modest magnitudes with many digits.
        xs.push((next() % 2_000_000_000) as f64 / 1e6 - 1000.0);
    }
    xs.retain(|x| x.is_finite());
    xs
}

#[test]
fn numbers_print_exactly_as_a_javascript_engine_prints_them() {
    let Some(node) = toolchain::tool("NODE", "node") else {
        return;
    };
    let xs = sample();
    let script = r#"
        const lines = require('fs').readFileSync(0, 'latin1').split('\n');
        const buf = new DataView(new ArrayBuffer(8));
        const out = [];
        for (const l of lines) {
            if (!l) continue;
            buf.setBigUint64(0, BigInt('0x' + l));
            out.push(String(buf.getFloat64(0)));
        }
        process.stdout.write(out.join('\n') + '\n');
    "#;
    let mut child = Command::new(node)
        .args(["-e", script])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("run node");
    let mut input = String::with_capacity(xs.len() * 17);
    for x in &xs {
        input.push_str(&format!("{:016x}\n", x.to_bits()));
    }
    let mut stdin = child.stdin.take().unwrap();
    let writer = std::thread::spawn(move || stdin.write_all(input.as_bytes()).unwrap());
    let out = child.wait_with_output().unwrap();
    writer.join().unwrap();
    assert!(out.status.success());
    let js = String::from_utf8(out.stdout).unwrap();
    let js: Vec<&str> = js.lines().collect();
    assert_eq!(js.len(), xs.len());
    let mut mine = String::new();
    for (x, want) in xs.iter().zip(js) {
        mine.clear();
        // Canonical form: JavaScript prints -0 as "0", as JCS does.
        write_f64(*x, &mut mine, true);
        assert_eq!(mine, want, "{:016x} ({x:e})", x.to_bits());
    }
    println!("{} doubles printed identically to node", xs.len());
}
