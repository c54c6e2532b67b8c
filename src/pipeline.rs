//! The whole computation in one call: model → topology → effective policies → generated objects →
//! predicted status, with every diagnostic of every stage. One pure function from the input state to
//! the desired output state; the commands only choose what to print.

use crate::diag::Diagnostics;
use crate::generate::{self, GenerateOptions, Generated};
use crate::model::Model;
use crate::resolve::status::{self, PolicyStatus, StatusOptions};
use crate::resolve::{self, PathEffective};
use crate::topology::{self, Topology};

/// Everything computed for one input.
pub struct Analysis<'m> {
    pub topology: Topology<'m>,
    /// Effective policies, aligned with `topology.paths()`.
    pub effective: Vec<PathEffective>,
    /// The generated objects, with the `only`/`gateway` filters of the options applied.
    pub generated: Generated,
    pub statuses: Vec<PolicyStatus>,
    /// Load diagnostics plus those of every stage, sorted.
    pub diagnostics: Diagnostics,
}

/// Run every stage. `load_diagnostics` are the loader's findings, carried into the result.
pub fn analyze<'m>(
    model: &'m Model,
    load_diagnostics: &Diagnostics,
    gen_opts: &GenerateOptions,
    status_opts: &StatusOptions,
) -> Analysis<'m> {
    let topology = Topology::build(model, gen_opts.version);
    let effective = resolve::effective(&topology);
    let generated = generate::generate(&topology, &effective, gen_opts);
    // CEL issues decide `InvalidCelExpression`; they must come from the whole estate, not a filtered view.
    let filtered = gen_opts.only.is_some() || gen_opts.gateway.is_some();
    let unfiltered;
    let cel = if filtered {
        let all = GenerateOptions {
            only: None,
            gateway: None,
            ..gen_opts.clone()
        };
        unfiltered = generate::generate(&topology, &effective, &all);
        &unfiltered.cel_issues
    } else {
        &generated.cel_issues
    };
    let statuses = status::status(&topology, &effective, cel, status_opts);
    let mut diagnostics = load_diagnostics.clone();
    diagnostics.extend(topology::lint::lint(&topology));
    for d in &generated.diagnostics {
        diagnostics.push(d.clone());
    }
    diagnostics.extend(status::diagnostics(&topology, &statuses));
    diagnostics.sort();
    Analysis {
        topology,
        effective,
        generated,
        statuses,
        diagnostics,
    }
}
