//! The files a package's model loads, found the way MuJoCo finds them, and their hashes.
//!
//! Starting at the entry file, every element with a file attribute is followed:
//! - `<include file>`: another MJCF file (recursively; its root is `<mujoco>`);
//! - `<mesh file>`, `<hfield file>`, `<skin file>`: under `<compiler meshdir>` (else
//!   `assetdir`);
//! - `<texture file>` and its cube faces `fileright`, `fileleft`, `fileup`, `filedown`,
//!   `filefront`, `fileback`: under `<compiler texturedir>` (else `assetdir`).
//!
//! Every path is relative to the directory of the entry file, includes of includes too (this
//! is what MuJoCo 2.2.2, 3.3.7 and 4.0.0 do); `<compiler strippath="true">` drops the
//! directories of file names. A package is self-contained: absolute paths, paths that leave
//! the package directory (`..`, symbolic links) and file references this tool does not know
//! how MuJoCo resolves (`<model file>`, for one) are refused rather than left out of the
//! digest.

use crate::{Problem, Result};
use sha2::{Digest, Sha256};
use std::collections::BTreeMap;
use std::path::Path;

/// `sha256:<hex>` of some bytes.
pub fn sha256(bytes: &[u8]) -> String {
    mjbridge::doc::jcs::digest_text(&Sha256::digest(bytes))
}

/// Resolve `rel` against `base` (both relative to the package directory, `/`-separated) to a
/// normalized relative path of an existing regular file inside `dir`. `what` names the place
/// that referred to it, for the error.
pub fn package_path(dir: &Path, base: &str, rel: &str, what: &str) -> Result<String> {
    if rel.starts_with('/') || rel.contains('\\') || rel.contains(':') {
        return Err(Problem::Unreadable(format!(
            "{what}: {rel:?} is not a relative path inside the package ('/'-separated, no drive, no backslash)"
        )));
    }
    let mut parts: Vec<&str> = Vec::new();
    for part in base.split('/').chain(rel.split('/')) {
        match part {
            "" | "." => {}
            ".." => {
                if parts.pop().is_none() {
                    return Err(Problem::Unreadable(format!(
                        "{what}: {rel:?} leaves the package directory; a package is self-contained"
                    )));
                }
            }
            p => parts.push(p),
        }
    }
    let norm = parts.join("/");
    if norm.is_empty() {
        return Err(Problem::Unreadable(format!(
            "{what}: {rel:?} names no file"
        )));
    }
    let full = dir.join(&norm);
    let meta = std::fs::metadata(&full)
        .map_err(|e| Problem::Unreadable(format!("{what}: file {norm} is missing ({e})")))?;
    if !meta.is_file() {
        return Err(Problem::Unreadable(format!(
            "{what}: {norm} is not a regular file"
        )));
    }
    let real = full
        .canonicalize()
        .map_err(|e| Problem::Unreadable(format!("{what}: {norm}: {e}")))?;
    if !real.starts_with(dir) {
        return Err(Problem::Unreadable(format!(
            "{what}: {norm} resolves outside the package directory (a symbolic link); a package is self-contained"
        )));
    }
    Ok(norm)
}

/// Read a package file (relative path already checked).
pub fn read(dir: &Path, rel: &str) -> Result<Vec<u8>> {
    std::fs::read(dir.join(rel))
        .map_err(|e| Problem::Unreadable(format!("{rel} cannot be read: {e}")))
}

/// One file the model loads.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ModelFile {
    pub path: String,
    pub sha256: String,
}

/// Which compiler directory an asset's file name is resolved under.
#[derive(Clone, Copy)]
enum AssetDir {
    Mesh,
    Texture,
}

struct Walk<'a> {
    dir: &'a Path,
    /// Directory of the entry file: every path is relative to it.
    base: String,
    files: BTreeMap<String, String>,
    meshdir: Option<String>,
    texturedir: Option<String>,
    assetdir: Option<String>,
    strippath: bool,
    /// (kind, file attribute, element, file it appeared in)
    assets: Vec<(AssetDir, String, String, String)>,
}

const TEXTURE_FILES: &[&str] = &[
    "file",
    "fileright",
    "fileleft",
    "fileup",
    "filedown",
    "filefront",
    "fileback",
];

impl Walk<'_> {
    fn include(&mut self, rel: &str, from: Option<&str>) -> Result<()> {
        let what = match from {
            None => "the package's model".to_owned(),
            Some(f) => format!("<include> in {f}"),
        };
        let path = package_path(self.dir, &self.base, rel, &what)?;
        if self.files.contains_key(&path) {
            return Err(Problem::Unreadable(format!(
                "{what}: {path} is included more than once (MuJoCo refuses repeated includes)"
            )));
        }
        let bytes = read(self.dir, &path)?;
        self.files.insert(path.clone(), sha256(&bytes));
        let text = std::str::from_utf8(&bytes)
            .map_err(|e| Problem::Unreadable(format!("model file {path} is not UTF-8: {e}")))?;
        let doc = roxmltree::Document::parse(text).map_err(|e| {
            Problem::Unreadable(format!("model file {path} is not well-formed XML: {e}"))
        })?;
        let root = doc.root_element();
        if root.tag_name().name() != "mujoco" {
            return Err(Problem::Unreadable(format!(
                "model file {path}: the root element is <{}>, not <mujoco> (packages hold MJCF models)",
                root.tag_name().name()
            )));
        }
        self.visit(root, &path)
    }

    /// Elements in document order, includes expanded where they stand (compiler settings
    /// seen later override earlier ones, as in MuJoCo).
    fn visit(&mut self, node: roxmltree::Node, path: &str) -> Result<()> {
        for child in node.children().filter(|n| n.is_element()) {
            let tag = child.tag_name().name();
            let file_attrs: Vec<(&str, &str)> = child
                .attributes()
                .filter(|a| a.name().starts_with("file"))
                .map(|a| (a.name(), a.value()))
                .collect();
            match tag {
                "include" => match child.attribute("file") {
                    Some(f) => self.include(f, Some(path))?,
                    None => {
                        return Err(Problem::Unreadable(format!(
                            "model file {path}: <include> without a file attribute"
                        )))
                    }
                },
                "compiler" => {
                    let set = |slot: &mut Option<String>, name: &str| {
                        if let Some(v) = child.attribute(name) {
                            *slot = Some(v.to_owned());
                        }
                    };
                    set(&mut self.meshdir, "meshdir");
                    set(&mut self.texturedir, "texturedir");
                    set(&mut self.assetdir, "assetdir");
                    if let Some(v) = child.attribute("strippath") {
                        self.strippath = v == "true";
                    }
                }
                "mesh" | "hfield" | "skin" => {
                    for (name, v) in &file_attrs {
                        if *name != "file" {
                            return Err(unsupported(path, tag, name));
                        }
                        self.assets
                            .push((AssetDir::Mesh, v.to_string(), tag.into(), path.into()));
                    }
                }
                "texture" => {
                    for (name, v) in &file_attrs {
                        if !TEXTURE_FILES.contains(name) {
                            return Err(unsupported(path, tag, name));
                        }
                        self.assets.push((
                            AssetDir::Texture,
                            v.to_string(),
                            tag.into(),
                            path.into(),
                        ));
                    }
                }
                _ => {
                    if let Some((name, _)) = file_attrs.first() {
                        return Err(unsupported(path, tag, name));
                    }
                }
            }
            if tag != "include" {
                self.visit(child, path)?;
            }
        }
        Ok(())
    }

    fn assets(&mut self) -> Result<()> {
        for (kind, file, tag, from) in std::mem::take(&mut self.assets) {
            let sub = match kind {
                AssetDir::Mesh => self.meshdir.as_ref(),
                AssetDir::Texture => self.texturedir.as_ref(),
            }
            .or(self.assetdir.as_ref())
            .cloned()
            .unwrap_or_default();
            let name = if self.strippath {
                file.rsplit('/').next().unwrap_or(&file).to_owned()
            } else {
                file.clone()
            };
            if sub.starts_with('/') {
                return Err(Problem::Unreadable(format!(
                    "model file {from}: the compiler's asset directory {sub:?} is absolute; a package is self-contained"
                )));
            }
            let base = if self.base.is_empty() {
                sub
            } else {
                format!("{}/{sub}", self.base)
            };
            let path = package_path(
                self.dir,
                &base,
                &name,
                &format!("<{tag} file={file:?}> in {from}"),
            )?;
            let bytes = read(self.dir, &path)?;
            self.files.insert(path, sha256(&bytes));
        }
        Ok(())
    }
}

fn unsupported(path: &str, tag: &str, attr: &str) -> Problem {
    Problem::Unreadable(format!(
        "model file {path}: <{tag} {attr}=...> refers to a file this tool does not know how MuJoCo resolves; \
         it cannot be covered by the digest, so the package is refused"
    ))
}

/// Every file the package's model loads (entry, includes, assets), sorted by path.
pub fn model_files(dir: &Path, entry: &str) -> Result<Vec<ModelFile>> {
    let base = match entry.rsplit_once('/') {
        Some((b, _)) => b.to_owned(),
        None => String::new(),
    };
    let mut walk = Walk {
        dir,
        base,
        files: BTreeMap::new(),
        meshdir: None,
        texturedir: None,
        assetdir: None,
        strippath: false,
        assets: Vec::new(),
    };
    let name = entry.rsplit('/').next().unwrap_or(entry).to_owned();
    walk.include(&name, None)?;
    walk.assets()?;
    Ok(walk
        .files
        .into_iter()
        .map(|(path, sha256)| ModelFile { path, sha256 })
        .collect())
}
