//! Which GPU types a job may use: any, one, or any of several (as bits);
//! and the types' entries a filter allows.

use tracetui_model::TypeId;

/// Which GPU types a job may use.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum TypeFilter {
    /// Any type the cluster has.
    Any,
    /// Only this one (an index into the cluster's GPU types).
    Only(TypeId),
    /// Any of these, as bits (bit t: type t; openb's `gpu_spec` of several
    /// models).
    Among(u64),
}

impl TypeFilter {
    /// The filter for a job that asks for GPU type `t` (`None`: any type).
    pub fn from(t: Option<TypeId>) -> TypeFilter {
        t.map_or(TypeFilter::Any, TypeFilter::Only)
    }

    /// The filter for `job`: its one type, any of its several, or any.
    pub fn of_job(job: &tracetui_model::Job) -> TypeFilter {
        match (job.gpu_type, job.any_of_types) {
            (None, 0) => TypeFilter::Any,
            (None, m) => TypeFilter::Among(m),
            (Some(t), _) => TypeFilter::Only(t),
        }
    }

    /// The types it allows among the first `n` (none for `Any`: all).
    pub fn types(self, n: usize) -> Vec<TypeId> {
        match self {
            TypeFilter::Any => Vec::new(),
            f => (0..n as TypeId).filter(|&t| f.allows(t)).collect(),
        }
    }

    /// Whether a job may use GPUs of type `t`.
    pub fn allows(self, t: TypeId) -> bool {
        match self {
            TypeFilter::Any => true,
            TypeFilter::Only(x) => x == t,
            TypeFilter::Among(m) => t < 64 && m >> t & 1 == 1,
        }
    }
}

/// The indexes of the types a filter allows: a run of them, or those of a
/// set of bits.
#[derive(Clone)]
pub(crate) enum Allowed<'a, T> {
    All(std::slice::Iter<'a, T>),
    Bits(std::iter::Enumerate<std::slice::Iter<'a, T>>, u64),
}

impl<'a, T> Iterator for Allowed<'a, T> {
    type Item = &'a T;

    #[inline]
    fn next(&mut self) -> Option<&'a T> {
        match self {
            Allowed::All(i) => i.next(),
            Allowed::Bits(i, m) => i
                .find(|(t, _)| *t < 64 && *m >> *t & 1 == 1)
                .map(|(_, x)| x),
        }
    }
}
