//! The committed header is exactly what cbindgen generates from the sources.
//! `MJB_BLESS=1 cargo test --test header` rewrites it.

use std::path::Path;

#[test]
fn committed_header_matches_cbindgen_output() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut config =
        cbindgen::Config::from_file(root.join("cbindgen.toml")).expect("cbindgen.toml");
    // The version comes from Cargo.toml, so the header can never disagree with mjb_version().
    let version = format!(
        "\n\n/**\n \
         * The version of the bridge this header belongs to, as text. Compare it with\n \
         * mjb_version() at run time to see which library a host actually loaded.\n \
         */\n\
         #define MJB_VERSION \"{}\"\n\n\
         /** The major part of #MJB_VERSION. */\n\
         #define MJB_VERSION_MAJOR {}\n\n\
         /**\n \
         * The minor part of #MJB_VERSION. Within one major version the ABI only grows: a host\n \
         * built against this header runs with a library of this minor version or a later one.\n \
         */\n\
         #define MJB_VERSION_MINOR {}\n\n\
         /** The patch part of #MJB_VERSION. */\n\
         #define MJB_VERSION_PATCH {}",
        env!("CARGO_PKG_VERSION"),
        env!("CARGO_PKG_VERSION_MAJOR"),
        env!("CARGO_PKG_VERSION_MINOR"),
        env!("CARGO_PKG_VERSION_PATCH"),
    );
    config.after_includes = Some(config.after_includes.unwrap_or_default() + &version);
    let mut generated = Vec::new();
    cbindgen::Builder::new()
        .with_crate(root)
        .with_config(config)
        .generate()
        .expect("cbindgen generates the header")
        .write(&mut generated);
    let path = root.join("include/mjbridge.h");
    if std::env::var_os("MJB_BLESS").is_some() {
        std::fs::write(&path, &generated).expect("write header");
    }
    let committed = std::fs::read(&path).unwrap_or_default();
    assert!(
        committed == generated,
        "include/mjbridge.h drifted from the Rust sources; run `MJB_BLESS=1 cargo test --test header` and commit it"
    );
}
