/**
 * A small Dockerfile reader following the Dockerfile reference: parser directives, comment lines
 * (also inside continued instructions), the escape character, line continuations, JSON (exec)
 * and shell forms, and stages (`FROM ... AS name`).
 */

export interface Instruction {
  /** Upper-case keyword. */
  keyword: string;
  /** Everything after the keyword, continuations joined. */
  args: string;
  /** The exec form's array when the arguments are a JSON array of strings. */
  json?: string[];
  line: number;
}

export interface Stage {
  from: string;
  name?: string;
  instructions: Instruction[];
}

export interface Dockerfile {
  directives: Record<string, string>;
  /** ARG before the first FROM. */
  globalArgs: Instruction[];
  stages: Stage[];
}

function jsonArray(text: string): string[] | undefined {
  if (!text.startsWith('[')) return undefined;
  try {
    const value: unknown = JSON.parse(text);
    return Array.isArray(value) && value.every((item) => typeof item === 'string') ? value : undefined;
  } catch {
    return undefined;
  }
}

export function parseDockerfile(text: string): Dockerfile {
  const lines = text.split(/\r?\n/);
  const directives: Record<string, string> = {};
  let index = 0;
  // Parser directives: `# key=value` lines at the very top.
  for (; index < lines.length; index++) {
    const match = /^#\s*([A-Za-z]+)\s*=\s*(.*?)\s*$/.exec(lines[index]!);
    if (!match) break;
    directives[match[1]!.toLowerCase()] = match[2]!;
  }
  const escapeChar = directives.escape ?? '\\';

  const instructions: Instruction[] = [];
  let pending: { text: string; line: number } | undefined;
  for (; index < lines.length; index++) {
    const raw = lines[index]!;
    const trimmed = raw.trim();
    if (trimmed.startsWith('#')) continue; // comments, also between continued lines
    if (!pending && trimmed === '') continue;
    const continued = trimmed.endsWith(escapeChar);
    const part = continued ? trimmed.slice(0, -escapeChar.length) : trimmed;
    pending = pending
      ? { text: `${pending.text} ${part}`, line: pending.line }
      : { text: part, line: index + 1 };
    if (continued) continue;
    const match = /^([A-Za-z]+)\s*(.*)$/s.exec(pending.text.trim());
    if (!match) throw new Error(`line ${pending.line}: not an instruction: ${pending.text}`);
    const args = match[2]!.replace(/\s+/g, ' ').trim();
    const instruction: Instruction = { keyword: match[1]!.toUpperCase(), args, line: pending.line };
    const json = jsonArray(args);
    if (json) instruction.json = json;
    instructions.push(instruction);
    pending = undefined;
  }
  if (pending) throw new Error(`line ${pending.line}: the file ends inside a continued instruction`);

  const globalArgs: Instruction[] = [];
  const stages: Stage[] = [];
  for (const instruction of instructions) {
    if (instruction.keyword === 'FROM') {
      const match = /^(?:--platform=\S+\s+)?(\S+)(?:\s+AS\s+(\S+))?$/i.exec(instruction.args);
      if (!match) throw new Error(`line ${instruction.line}: bad FROM ${instruction.args}`);
      stages.push({ from: match[1]!, ...(match[2] ? { name: match[2] } : {}), instructions: [] });
    } else if (stages.length === 0) {
      if (instruction.keyword !== 'ARG') {
        throw new Error(`line ${instruction.line}: ${instruction.keyword} before the first FROM`);
      }
      globalArgs.push(instruction);
    } else {
      stages.at(-1)!.instructions.push(instruction);
    }
  }
  if (stages.length === 0) throw new Error('no FROM instruction');
  return { directives, globalArgs, stages };
}

/** The user the stage runs as: its last USER (stages start as root unless the base image says otherwise). */
export function finalUser(stage: Stage): string | undefined {
  return stage.instructions.filter((instruction) => instruction.keyword === 'USER').at(-1)?.args;
}

export function isRootUser(user: string): boolean {
  const [name = '', group] = user.split(':');
  return name === 'root' || name === '0' || (name === '' && group !== undefined);
}

/** `KEY=value` pairs of the stage's ENV instructions (both syntaxes). */
export function stageEnv(stage: Stage): Record<string, string> {
  const env: Record<string, string> = {};
  for (const instruction of stage.instructions.filter((item) => item.keyword === 'ENV')) {
    if (!instruction.args.includes('=')) {
      const [key = '', ...rest] = instruction.args.split(' ');
      env[key] = rest.join(' ');
      continue;
    }
    for (const match of instruction.args.matchAll(/([A-Za-z_][A-Za-z0-9_]*)=("(?:[^"\\]|\\.)*"|\S*)/g)) {
      env[match[1]!] = match[2]!.replace(/^"(.*)"$/, '$1');
    }
  }
  return env;
}

/**
 * The image a build produces: the target stage (without a target, the last one) preceded by the
 * stages it builds on (`FROM <stage>`), so that USER, ENV, COPY and HEALTHCHECK read as the image
 * has them when several images share a Dockerfile.
 */
export function imageStage(dockerfile: Dockerfile, target?: string): Stage {
  const named = (name: string) => dockerfile.stages.find((stage) => stage.name === name);
  const last = target === undefined ? dockerfile.stages.at(-1) : named(target);
  if (!last) throw new Error(`no stage named ${target}`);
  const chain = [last];
  for (let base = named(last.from); base; base = named(base.from)) chain.unshift(base);
  return {
    from: chain[0]!.from,
    name: last.name,
    instructions: chain.flatMap((stage) => stage.instructions),
  };
}
