//! Generate: the data-plane objects the operator would apply (owned by the generation work, issue 5).
