// The strict form of an API schema: every object in it, however deep, refuses keys it does not list. It is what the
// OpenAPI document says of each answer (zod writes `additionalProperties: false` for an object in output mode), so
// an answer that parses with it has no field the document leaves out. Objects that declare a catchall (loose on
// purpose) keep it, and so do records; checks, defaults and transforms are kept (each schema is cloned, not rebuilt).
// A recursive schema must recurse through z.lazy (a getter in a shape would be walked forever).
import { z } from 'zod';

type Def = Record<string, unknown> & { type: string };
const defOf = (s: z.ZodType) => (s as unknown as { _zod: { def: Def } })._zod.def;
const cloneWith = <T extends z.ZodType>(s: T, changes: Record<string, unknown>): T =>
  (s as unknown as { clone(def: Def): T }).clone({ ...defOf(s), ...changes });

const done = new WeakMap<z.ZodType, z.ZodType>();

export function strictSchema<T extends z.ZodType>(schema: T): T {
  const known = done.get(schema);
  if (known) return known as T;
  const def = defOf(schema);
  let out: z.ZodType;
  switch (def.type) {
    case 'object': {
      const shape = Object.fromEntries(Object.entries(def.shape as Record<string, z.ZodType>).map(([k, v]) => [k, strictSchema(v)]));
      const strict = def.catchall === undefined;
      out = cloneWith(schema, strict ? { shape, catchall: z.never() } : { shape });
      break;
    }
    case 'array':
      out = cloneWith(schema, { element: strictSchema(def.element as z.ZodType) });
      break;
    case 'optional':
    case 'nullable':
    case 'default':
    case 'prefault':
    case 'nonoptional':
    case 'readonly':
    case 'catch':
      out = cloneWith(schema, { innerType: strictSchema(def.innerType as z.ZodType) });
      break;
    case 'union':
      out = cloneWith(schema, { options: (def.options as z.ZodType[]).map(strictSchema) });
      break;
    case 'intersection':
      out = cloneWith(schema, { left: strictSchema(def.left as z.ZodType), right: strictSchema(def.right as z.ZodType) });
      break;
    case 'record':
      out = cloneWith(schema, { valueType: strictSchema(def.valueType as z.ZodType) });
      break;
    case 'tuple':
      out = cloneWith(schema, { items: (def.items as z.ZodType[]).map(strictSchema), rest: def.rest ? strictSchema(def.rest as z.ZodType) : def.rest });
      break;
    case 'pipe':
      out = cloneWith(schema, { in: strictSchema(def.in as z.ZodType), out: strictSchema(def.out as z.ZodType) });
      break;
    case 'lazy': {
      const getter = def.getter as () => z.ZodType;
      let inner: z.ZodType | null = null;
      out = cloneWith(schema, { getter: () => (inner ??= strictSchema(getter())) });
      break;
    }
    default:
      out = schema;
  }
  done.set(schema, out);
  return out as T;
}

