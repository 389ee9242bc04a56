//! Page-type accounting under the conventional scheme.
