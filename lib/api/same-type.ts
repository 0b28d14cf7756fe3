// A compile-time check that two types are one: where a pure library (lib/rollouts, which imports no API) computes a
// value an API schema describes, `type _Check = Expect<Same<Its, z.infer<typeof Schema>>>` fails to compile when
// they drift apart.

/** `true` when A and B are each assignable to the other (the same fields, optional the same), else `false`. */
export type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;

/** Compiles only for `true`. */
export type Expect<T extends true> = T;
