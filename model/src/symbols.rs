//! Interned strings: a trace's users, groups and models held once, each
//! job holding small ids (`Sym`) into them.

/// Interned strings (users, groups, models): jobs hold small ids, not copies.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Symbols {
    names: Vec<String>,
    /// By the string's 128-bit key (see `texts::key`): no string compares.
    index: rustc_hash::FxHashMap<u128, Sym>,
}

/// A symbol's index in its `Symbols`, held plus one so that `Option<Sym>`
/// takes four bytes (three of them in every job).
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Sym(std::num::NonZeroU32);

impl Sym {
    /// The symbol at `index` in its `Symbols`.
    pub fn new(index: u32) -> Sym {
        Sym(std::num::NonZeroU32::MIN.saturating_add(index))
    }

    /// Its index in its `Symbols`.
    pub fn index(self) -> u32 {
        self.0.get() - 1
    }
}

impl std::fmt::Debug for Sym {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Sym({})", self.index())
    }
}

impl Symbols {
    /// The symbol of `s`, added if new.
    pub fn intern(&mut self, s: &str) -> Sym {
        let k = crate::texts::key(s.as_bytes());
        if let Some(&sym) = self.index.get(&k) {
            return sym;
        }
        let sym = Sym::new(self.names.len() as u32);
        self.names.push(s.to_string());
        self.index.insert(k, sym);
        sym
    }

    pub(crate) fn lookup(&self, s: &str) -> Option<Sym> {
        self.index.get(&crate::texts::key(s.as_bytes())).copied()
    }

    /// The string of `sym`, which must come from these symbols.
    pub fn get(&self, sym: Sym) -> &str {
        &self.names[sym.index() as usize]
    }

    /// How many distinct strings are held.
    pub fn len(&self) -> usize {
        self.names.len()
    }

    /// Whether none are.
    pub fn is_empty(&self) -> bool {
        self.names.is_empty()
    }
}
