// Types of index.mjs, for the TypeScript that imports it (packages/test-services).
export declare const APERTIUM_MODES: string;
export declare function apertiumApyScript(
  path?: string,
): { path: string; firstLine: string } | undefined;
export declare function apertiumPython(path?: string): string;
export declare function apertiumCommand(options: {
  address: string;
  port: number;
  args?: string[];
  modes?: string;
}): { command: string; args: string[] };
