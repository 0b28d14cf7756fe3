// Types for bin/compiled.js (plain JavaScript: it must run before any TypeScript loader exists).
export type Main = (argv: string[]) => Promise<number>;
export function freshBundle(root?: string): string | null;
export function build(root?: string): Promise<string>;
export function compiledMain(root?: string): Promise<Main | null>;
