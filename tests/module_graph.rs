//! The crate's modules form a layered graph: no top-level module of `src/` reaches back
//! to one that reaches it (`use crate::...` and `crate::...` paths in code, tests and
//! comments aside). A cycle fails here with the files that make it.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// `module -> (module it uses -> files that use it)`, over the top-level modules of `src/`.
type Graph = BTreeMap<String, BTreeMap<String, BTreeSet<String>>>;

fn rust_files(dir: &Path, out: &mut Vec<std::path::PathBuf>) {
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            rust_files(&p, out);
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
}

/// The code of a file without comments, and without its test module (everything from
/// the first `#[cfg(test)]` on, which is where this crate keeps them).
fn code(text: &str) -> String {
    let body = text.split("#[cfg(test)]").next().unwrap_or("");
    body.lines().map(|l| l.split("//").next().unwrap_or("")).collect::<Vec<_>>().join("\n")
}

fn graph() -> Graph {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    let mut g = Graph::new();
    for f in files {
        let rel = f.strip_prefix(&src).unwrap();
        let name = rel.file_name().unwrap().to_string_lossy();
        if name == "tests.rs" || name.ends_with("_tests.rs") {
            continue;
        }
        let top =
            rel.components().next().unwrap().as_os_str().to_string_lossy().trim_end_matches(".rs").to_owned();
        let text = code(&std::fs::read_to_string(&f).unwrap());
        for (i, _) in text.match_indices("crate::") {
            let rest = &text[i + "crate::".len()..];
            let used: String = rest.chars().take_while(|c| c.is_ascii_alphanumeric() || *c == '_').collect();
            // `crate::{a, b}` groups are not used in this crate; a path names one module.
            if !used.is_empty() && used != top {
                g.entry(top.clone()).or_default().entry(used).or_default().insert(rel.display().to_string());
            }
        }
    }
    g
}

/// Strongly connected components with more than one module (Tarjan).
fn cycles(g: &Graph) -> Vec<Vec<String>> {
    struct State<'a> {
        g: &'a Graph,
        index: BTreeMap<&'a str, usize>,
        low: BTreeMap<&'a str, usize>,
        stack: Vec<&'a str>,
        on: BTreeSet<&'a str>,
        out: Vec<Vec<String>>,
    }
    fn visit<'a>(s: &mut State<'a>, v: &'a str) {
        let n = s.index.len();
        s.index.insert(v, n);
        s.low.insert(v, n);
        s.stack.push(v);
        s.on.insert(v);
        let g = s.g;
        for w in g.get(v).into_iter().flat_map(|m| m.keys()) {
            let w = w.as_str();
            if !s.index.contains_key(w) {
                visit(s, w);
                let lw = s.low[w];
                let lv = s.low.get_mut(v).unwrap();
                *lv = (*lv).min(lw);
            } else if s.on.contains(w) {
                let iw = s.index[w];
                let lv = s.low.get_mut(v).unwrap();
                *lv = (*lv).min(iw);
            }
        }
        if s.low[v] == s.index[v] {
            let mut c = Vec::new();
            while let Some(w) = s.stack.pop() {
                s.on.remove(w);
                c.push(w.to_owned());
                if w == v {
                    break;
                }
            }
            if c.len() > 1 {
                c.sort();
                s.out.push(c);
            }
        }
    }
    let mut s = State {
        g,
        index: BTreeMap::new(),
        low: BTreeMap::new(),
        stack: Vec::new(),
        on: BTreeSet::new(),
        out: Vec::new(),
    };
    for v in g.keys() {
        if !s.index.contains_key(v.as_str()) {
            visit(&mut s, v);
        }
    }
    s.out
}

#[test]
fn the_module_graph_has_no_cycles() {
    let g = graph();
    let found = cycles(&g);
    let mut report = String::new();
    for c in &found {
        report += &format!("cycle {}:\n", c.join(" <-> "));
        for a in c {
            for b in c {
                if let Some(files) = g.get(a).and_then(|m| m.get(b)) {
                    let files: Vec<&str> = files.iter().map(String::as_str).collect();
                    report += &format!("  {a} -> {b}: {}\n", files.join(", "));
                }
            }
        }
    }
    assert!(found.is_empty(), "{report}");
}

#[test]
fn the_cycle_finder_finds_a_cycle() {
    let mut g = Graph::new();
    for (a, b) in [("x", "y"), ("y", "z"), ("z", "x"), ("z", "w")] {
        g.entry(a.into()).or_default().entry(b.into()).or_default().insert("f.rs".into());
    }
    assert_eq!(cycles(&g), vec![vec!["x".to_owned(), "y".to_owned(), "z".to_owned()]]);
}

#[test]
fn the_api_is_the_crate_root_and_the_pipeline() {
    // Implementation modules are private; the crate root re-exports the API. Only the
    // pipeline (the library form of `circuitlearn train`) and the tutorial are modules.
    let lib =
        code(&std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("src/lib.rs")).unwrap());
    let public: Vec<&str> = lib
        .lines()
        .filter_map(|l| l.trim().strip_prefix("pub mod "))
        .map(|m| m.trim_end_matches(';'))
        .collect();
    assert_eq!(public, ["pipeline", "tutorial"], "public modules in src/lib.rs");
    assert!(lib.contains("mod cli;") && lib.contains("mod bench;"), "cli and bench are private modules");
}
