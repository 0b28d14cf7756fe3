// Stands in for the 'server-only' guard when lib modules are imported by vitest (a Node process).
export {};
