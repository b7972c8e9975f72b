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

/** What to open once every service is ready; `url(name, path)` is a service's local address. */
export function readyText({ url, apiKey, apertiumUrl, took, bold, dim }) {
  const rows = [
    // The access token travels in the fragment only: the browser never sends it to a server.
    [
      'links hub',
      hubLink(url('ui'), apiKey),
      'start here: fills itself in and builds the capture, editor and overlay links',
    ],
    ['capture', url('speech'), 'the microphone page'],
    ['overlay', url('ui', '/overlay.html'), 'OBS browser source; open it through its link from the hub'],
    ['calendar', url('calendar', '/wp-json/cal/events/v1/events'), ''],
    [
      'outputs',
      url('outputs', '/health'),
      'YouTube Live, Zoom and the transcript: the editor\'s "Where captions go"',
    ],
    [
      'sources',
      url('sources', '/health'),
      'live streams captioned with no browser: RTMP, SRT, HLS (API with the access token)',
    ],
    ...(apertiumUrl
      ? [['apertium', `${apertiumUrl}/listPairs`, 'Apertium APy: the translation engine']]
      : []),
  ].filter(([, link]) => link);
  return [
    '',
    bold(`Live captions is running (ready in ${took}). Open:`),
    ...rows.map(([what, link, note]) => `  ${what.padEnd(10)} ${bold(link)}${note ? dim(`  ${note}`) : ''}`),
    `  access token: CAPTION_API_KEY in ${bold('secrets/caption-local.env')} ${dim('(already in the hub link above)')}`,
    dim('A service that stops is restarted by itself; the pages reconnect.'),
    dim('Ctrl+C stops everything.'),
    '',
  ].join('\n');
}
