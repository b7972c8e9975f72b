/**
 * A real OBS Studio for the OBS captions test, as ../shared/reference/obs-in-tests.md describes:
 * Debian's OBS 29 (obs-websocket 5.1 built in) under Xvfb with a private HOME, streaming 320x180
 * at 10 fps (keyframe every frame-second) to a private nginx-rtmp, and ffmpeg recording that stream
 * and reading its CEA-608 captions back. Runs inside the scenario's network namespace: OBS's
 * WebSocket listens on every interface and has no bind setting.
 */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** A user's PATH may lack the sbin folders, where nginx and ip are. */
export const SYSTEM_PATH = `${process.env.PATH ?? '/usr/bin:/bin'}:/usr/sbin:/sbin`;
export const RTMP_PORT = 1935;
export const OBS_PORT = 4455;
const FPS = 10;

export interface Program {
  name: string;
  child: ChildProcess;
  output(): string;
  stop(signal?: NodeJS.Signals): Promise<void>;
}

/** Starts a program with its output kept (tail) for the failure report. */
export function program(
  name: string,
  argv: string[],
  env: Record<string, string> = {},
  stdio3 = false,
): Program {
  const child = spawn(argv[0]!, argv.slice(1), {
    env: { PATH: SYSTEM_PATH, ...env },
    stdio: stdio3 ? ['pipe', 'pipe', 'pipe', 'pipe'] : ['pipe', 'pipe', 'pipe'],
  });
  let text = '';
  const keep = (chunk: Buffer) => {
    text = (text + chunk.toString()).slice(-8000);
  };
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  child.on('error', (error) => keep(Buffer.from(`spawn error: ${error.message}\n`)));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  return {
    name,
    child,
    output: () => text,
    async stop(signal = 'SIGTERM') {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill(signal);
      const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
      await exited;
      clearTimeout(timer);
    },
  };
}

/** The profile, scene collection and WebSocket settings OBS 29 reads at start. */
export function writeObsHome(home: string, password: string): void {
  const config = join(home, '.config/obs-studio');
  mkdirSync(join(config, 'basic/profiles/P'), { recursive: true });
  mkdirSync(join(config, 'basic/scenes'), { recursive: true });
  writeFileSync(
    join(config, 'global.ini'),
    [
      '[General]',
      'FirstRun=true',
      'LastVersion=486539266',
      'EnableAutoUpdates=false',
      'ConfirmOnExit=false',
      '[BasicWindow]',
      'SysTrayEnabled=true',
      'WarnBeforeStartingStream=false',
      'WarnBeforeStoppingStream=false',
      '[Basic]',
      'Profile=P',
      'ProfileDir=P',
      'SceneCollection=C',
      'SceneCollectionFile=C',
      'ConfigOnNewProfile=false',
      '[OBSWebSocket]',
      'FirstLoad=false',
      'ServerEnabled=true',
      `ServerPort=${OBS_PORT}`,
      'AlertsEnabled=false',
      'AuthRequired=true',
      `ServerPassword=${password}`,
      '',
    ].join('\n'),
  );
  writeFileSync(
    join(config, 'basic/profiles/P/basic.ini'),
    [
      '[General]',
      'Name=P',
      '[Video]',
      'BaseCX=320',
      'BaseCY=180',
      'OutputCX=320',
      'OutputCY=180',
      'FPSType=1',
      `FPSInt=${FPS}`,
      '[Output]',
      'Mode=Simple',
      '[SimpleOutput]',
      'StreamEncoder=x264',
      'Preset=ultrafast',
      'VBitrate=150',
      'UseAdvanced=true',
      // A keyframe every second: the default 250 frames would leave the recording's start undecodable.
      `x264Settings=keyint=${FPS} min-keyint=${FPS} scenecut=0`,
      '',
    ].join('\n'),
  );
  writeFileSync(
    join(config, 'basic/profiles/P/service.json'),
    JSON.stringify({
      type: 'rtmp_custom',
      settings: { server: `rtmp://127.0.0.1:${RTMP_PORT}/live`, key: 'test' },
    }),
  );
  const sceneId = '11111111-1111-4111-8111-111111111111';
  const colorId = '22222222-2222-4222-8222-222222222222';
  writeFileSync(
    join(config, 'basic/scenes/C.json'),
    JSON.stringify({
      current_scene: 'S',
      current_program_scene: 'S',
      name: 'C',
      scene_order: [{ name: 'S' }],
      sources: [
        {
          id: 'scene',
          versioned_id: 'scene',
          name: 'S',
          uuid: sceneId,
          settings: {
            id_counter: 1,
            // Without an explicit scale nothing is drawn.
            items: [
              {
                name: 'bg',
                source_uuid: colorId,
                visible: true,
                pos: { x: 0, y: 0 },
                scale: { x: 1, y: 1 },
                id: 1,
              },
            ],
          },
        },
        {
          id: 'color_source',
          versioned_id: 'color_source_v3',
          name: 'bg',
          uuid: colorId,
          settings: { color: 4278190335, width: 320, height: 180 },
        },
      ],
    }),
  );
}

/** A private nginx with the RTMP module, one live application. */
export function startNginx(dir: string): Program {
  mkdirSync(join(dir, 'logs'), { recursive: true });
  writeFileSync(
    join(dir, 'nginx.conf'),
    [
      'load_module /usr/lib/nginx/modules/ngx_rtmp_module.so;',
      'daemon off;',
      'master_process off;',
      `pid ${join(dir, 'nginx.pid')};`,
      'events { worker_connections 64; }',
      `rtmp { server { listen 127.0.0.1:${RTMP_PORT}; application live { live on; } } }`,
      '',
    ].join('\n'),
  );
  return program('nginx', ['nginx', '-p', dir, '-c', join(dir, 'nginx.conf'), '-e', join(dir, 'error.log')]);
}

/** Xvfb on a free display (it picks and reports the number: no clash with another X server). */
export async function startXvfb(): Promise<{ xvfb: Program; display: string }> {
  const xvfb = program(
    'Xvfb',
    ['Xvfb', '-displayfd', '3', '-screen', '0', '1280x720x24', '-nolisten', 'tcp'],
    {},
    true,
  );
  const fd = xvfb.child.stdio[3] as NodeJS.ReadableStream;
  const display = await new Promise<string>((resolve, reject) => {
    let text = '';
    fd.on('data', (chunk: Buffer) => {
      text += chunk.toString();
      if (text.includes('\n')) resolve(`:${text.trim()}`);
    });
    xvfb.child.once('exit', () => reject(new Error(`Xvfb exited: ${xvfb.output()}`)));
  });
  return { xvfb, display };
}

/** OBS with the private HOME; `streaming`: starts its stream at once (else a client starts it). */
export function startObs(home: string, display: string, streaming = false): Program {
  const runtime = join(home, 'runtime');
  mkdirSync(runtime, { recursive: true, mode: 0o700 });
  const argv = ['obs', '--profile', 'P', '--collection', 'C', '--minimize-to-tray', '--multi'];
  return program('obs', streaming ? [...argv, '--startstreaming'] : argv, {
    DISPLAY: display,
    HOME: home,
    XDG_RUNTIME_DIR: runtime,
  });
}

/** ffmpeg copying the RTMP stream into a file until stopped (`q` on stdin ends it cleanly). */
export function startRecorder(file: string): Program & { finish(): Promise<void> } {
  const recorder = program('ffmpeg', [
    'ffmpeg',
    '-nostats',
    '-loglevel',
    'warning',
    '-y',
    // A short probe: the recording (and so the test) starts within a second, not after 5 s of probing.
    '-analyzeduration',
    '1000000',
    '-i',
    `rtmp://127.0.0.1:${RTMP_PORT}/live/test`,
    '-c',
    'copy',
    // Written through at once: the file growing is the sign that the stream is being read.
    '-flush_packets',
    '1',
    file,
  ]);
  return {
    ...recorder,
    async finish() {
      recorder.child.stdin?.end('q');
      const timer = setTimeout(() => recorder.child.kill('SIGINT'), 5000);
      await recorder.stop('SIGCONT');
      clearTimeout(timer);
    },
  };
}

/** One cue of the captions ffmpeg decoded: its rows as 608 showed them. */
export interface Cue {
  start: string;
  text: string;
}

/**
 * The recording's CEA-608 captions as SRT cues. OBS writes the caption SEI after the picture, which
 * ffmpeg's `subcc` skips in FLV; from an Annex B H.264 elementary stream it reads them.
 */
export function readCaptions(flv: string): Cue[] {
  const h264 = `${flv}.h264`;
  const srt = `${flv}.srt`;
  const quiet = ['-nostdin', '-loglevel', 'error', '-y'];
  execFileSync('ffmpeg', [
    ...quiet,
    '-i',
    flv,
    '-map',
    '0:v',
    '-c:v',
    'copy',
    '-bsf:v',
    'h264_mp4toannexb',
    '-f',
    'h264',
    h264,
  ]);
  execFileSync('ffmpeg', [
    ...quiet,
    '-f',
    'lavfi',
    '-i',
    `movie=${h264}:f=h264,setpts=N/(${FPS}*TB)[out0+subcc]`,
    '-map',
    '0:1',
    srt,
  ]);
  const text = readFileSync(srt, 'utf8');
  return text
    .split(/\r?\n\r?\n/)
    .map((block) => block.trim().split(/\r?\n/))
    .filter((lines) => lines.length >= 3)
    .map(([, times, ...rows]) => ({
      start: times!.split(' --> ')[0]!,
      // ffmpeg marks the 608 font and position: <font face="Monospace">{\an7}...</font>
      text: rows
        .join('\n')
        .replace(/<[^>]*>/g, '')
        .replace(/\{\\[^}]*\}/g, ''),
    }));
}
