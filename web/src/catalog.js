// What the simulator offers the page, read once at start from its schema (vtrain.schema()): every
// enum's choices, the registries (GPUs, model presets, examples, explore cases, scaling fits,
// compute-optimal presets), defaults and bounds. The page writes none of these lists itself, so a
// GPU, an example or a choice the simulator gains shows up here without an edit to the page. The
// examples' configs come from vtrain.presets(), checked by the simulator so that every field is
// explicit and loading one sets every input.

/** [value, label] pairs of an enum of the schema, in the simulator's order. */
function enumChoices(schema, key) {
  return (schema.enums[key] || []).map((c) => [c.name, c.label]);
}

/** Reads the catalog from the simulator (lib/vtrain.js). */
export async function loadCatalog(vtrain) {
  const [schema, presets] = await Promise.all([vtrain.schema(), vtrain.presets()]);
  const reg = schema.registries;
  const configs = new Map(presets.examples.map((ex) => [ex.name, ex.config]));
  const examples = await Promise.all(
    reg.examples
      .filter((ex) => configs.has(ex.name))
      .map(async (ex) => ({ ...ex, config: await vtrain.validateConfig(configs.get(ex.name)) })),
  );
  const models = reg.model_presets;
  const profiles = reg.gpus;
  const byName = (list) => (name) => list.find((x) => x.name === name) || null;
  return {
    /** The simulator's own description of its inputs (web/lib/types.d.ts, Schema). */
    schema,
    /** Model presets: {name, description, model, ...}. */
    models,
    /** Example configs: {name, description, config}. */
    examples,
    /** GPU profiles: {name, display_name, label, peak_fp16_tflops, intra_node_GBps, ...}. */
    profiles,
    /** Compute-optimal presets: {name, description, request}. */
    optimalPresets: reg.optimal_presets,
    /** Explore cases: {name, label, example, description, request}. */
    exploreCases: reg.explore_cases,
    /** Published scaling-law fits: {name, label, citation, E, A, B, alpha, beta}. */
    fits: reg.scaling_fits,
    model: byName(models),
    example: byName(examples),
    profile: byName(profiles),
    fit: byName(reg.scaling_fits),
    /** An enum's choices as [value, label] pairs: 'recompute', 'precision', 'objective', 'family', ... */
    choices: (key) => enumChoices(schema, key),
    /** A GPU as a sentence names it: the schema's label ("A100 SXM4 80GB"), the name itself if unknown. */
    gpuName(name) {
      const p = profiles.find((x) => x.name === name);
      return p ? p.label || p.display_name || p.name : name;
    },
  };
}
