// What the simulator offers the page, read once at start: model presets, example configs (with
// every field explicit, so loading one sets every input), GPU profiles and compute-optimal presets.

/** Reads the catalog from the simulator (lib/vtrain.js). */
export async function loadCatalog(vtrain) {
  const [presets, profiles] = await Promise.all([vtrain.presets(), vtrain.profiles()]);
  const examples = await Promise.all(
    presets.examples.map(async (ex) => ({ ...ex, config: await vtrain.validateConfig(ex.config) })),
  );
  const models = presets.models;
  return {
    /** Model presets: {name, description, model}. */
    models,
    /** Example configs: {name, description, config}. */
    examples,
    /** GPU profiles: {name, display_name, hardware, ...}. */
    profiles,
    /** Compute-optimal presets: {name, request}. */
    optimalPresets: presets.optimal || [],
    model: (name) => models.find((m) => m.name === name) || null,
    example: (name) => examples.find((e) => e.name === name) || null,
    profile: (name) => profiles.find((p) => p.name === name) || null,
    /** A GPU as the page names it: "A100-SXM4-80GB" for a100-sxm4-80gb, the name itself if unknown. */
    gpuName(name) {
      const p = profiles.find((x) => x.name === name);
      return p ? (p.display_name || p.name).replace(/^NVIDIA /, '') : name;
    },
  };
}
