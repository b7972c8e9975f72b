// What `pnpm start` (start-stack.mjs) says to a person: the ways forward when the first start
// could not fetch its model, and the links hub's address with the access token.

/** What to do when the first start could not fetch its model (offline, a proxy, a mirror down). */
export function modelHelp(model, url, bold) {
  return [
    '',
    bold(`pnpm start: could not download the speech model "${model.name}".`),
    `  tried:  ${url}`,
    `  into:   ${model.path}`,
    'Ways forward:',
    `  - a model file you already have: ${bold('CAPTION_OFFLINE=1 CAPTION_MODEL=/path/to/ggml-<name>.bin pnpm start')}`,
    `  - a mirror laid out like the official repository: ${bold('CAPTION_MODEL_BASE_URL=https://mirror.example/whisper.cpp pnpm start')}`,
    `  - on a connected machine: ${bold(`pnpm model ${model.name}`)}, then copy ${model.path} to the same place here`,
    '',
  ].join('\n');
}

/** The links hub's address, the access token in its fragment only (never sent to a server). */
export function hubLink(base, apiKey) {
  if (!base) return undefined;
  return apiKey ? `${base}#${new URLSearchParams({ token: apiKey })}` : base;
}
