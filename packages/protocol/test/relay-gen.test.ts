import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { getOption } from '@bufbuild/protobuf';
import { Edition } from '@bufbuild/protobuf/wkt';
import { afterAll, describe, expect, it } from '@jest/globals';
import * as hrpcPb from '../src/gen/hrpc_pb.js';
import * as relayPb from '../src/gen/relay_pb.js';

const here = fileURLToPath(new URL('..', import.meta.url));
const bin = join(here, 'node_modules', '.bin');

describe('generated relay types', () => {
  const out = mkdtempSync(join(tmpdir(), 'relay-gen-'));
  afterAll(() => rmSync(out, { recursive: true, force: true }));

  it('match proto/ (run `pnpm --filter @live-captions/protocol generate` when this fails)', () => {
    execFileSync(
      join(bin, 'buf'),
      ['generate', '../../proto', '--template', '../../proto/buf.gen.yaml', '-o', out],
      {
        cwd: here,
        env: { ...process.env, PATH: `${bin}:${process.env.PATH}` },
        stdio: 'pipe',
      },
    );
    const fresh = readdirSync(join(out, 'src', 'gen')).sort();
    const checkedIn = readdirSync(join(here, 'src', 'gen')).sort();
    expect(checkedIn).toEqual(fresh);
    for (const name of fresh) {
      const expected = readFileSync(join(out, 'src', 'gen', name), 'utf8');
      expect({ name, text: readFileSync(join(here, 'src', 'gen', name), 'utf8') }).toEqual({
        name,
        text: expected,
      });
    }
  });

  it('declare the hrpc extensions with the numbers of the spec', () => {
    expect(hrpcPb.service.number).toBe(50000);
    expect(hrpcPb.service.extendee.typeName).toBe('google.protobuf.ServiceOptions');
    expect(hrpcPb.method.number).toBe(50001);
    expect(hrpcPb.method.extendee.typeName).toBe('google.protobuf.MethodOptions');
    expect(hrpcPb.VoidSchema.fields).toHaveLength(0);
    expect(hrpcPb.file_hrpc.edition).toBe(Edition.EDITION_PROTO2);
    expect(hrpcPb.file_hrpc.proto.package).toBe('hrpc');
    expect(hrpcPb.file_hrpc.dependencies.map((file) => file.name)).toEqual(['google/protobuf/descriptor']);
  });

  it('give the relay service and each of its methods a distinct hrpc id', () => {
    const service = relayPb.Relay;
    expect(getOption(service, hrpcPb.service)).toBe(1);
    const ids = service.methods.map((m) => [m.name, getOption(m, hrpcPb.method)]);
    expect(ids).toEqual([
      ['Join', 1],
      ['Publish', 2],
      ['Caption', 3],
      ['Gap', 4],
      ['Beat', 5],
    ]);
  });
});
