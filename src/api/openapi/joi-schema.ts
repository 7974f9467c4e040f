import type { Schema } from 'joi';
import { createRequire } from 'node:module';
import { isDeepStrictEqual } from 'node:util';

export type Describable = Pick<Schema, 'describe'>;
export type Json = Record<string, unknown>;

// joi-to-json is CommonJS with a function export that its typings describe as a namespace.
// The document is OpenAPI 3.1, whose schemas are JSON Schema 2020-12: `type: ['string', 'null']`
// says "or null" in a way every JSON Schema validator reads (OpenAPI 3.0's `nullable` is not one).
const joiToJson = createRequire(import.meta.url)('joi-to-json') as (schema: Describable, mode: 'open-api-3.1', definitions: Json, options: object) => Json;

interface Dependency {
  key: string | null;
  peers: string[];
}

/** A schema that no value matches: a property under it must be absent. */
const ABSENT = { not: {} };
const absent = (names: string[]) => ({ properties: Object.fromEntries(names.map((name) => [name, ABSENT])) });

/**
 * joi's object rules that joi-to-json would write with `if`/`then: false` or `not: { required }`,
 * which Redocly refuses (a boolean schema) or warns about (a `required` naming no property): the same
 * rules as "when this key is present, those are absent" (`dependentSchemas`) and "exactly one of".
 */
const LOGICAL_OPERATORS = {
  /** Exactly one: two present match two alternatives, which `oneOf` refuses. */
  xor: (schema: Json, { peers }: Dependency) => {
    schema.oneOf = peers.map((peer) => ({ required: [peer] }));
  },
  /** At most one: each present peer makes the others absent. */
  oxor: (schema: Json, { peers }: Dependency) => {
    const dependent = (schema.dependentSchemas ?? {}) as Json;
    for (const peer of peers) dependent[peer] = absent(peers.filter((other) => other !== peer));
    schema.dependentSchemas = dependent;
  },
  without: (schema: Json, { key, peers }: Dependency) => {
    schema.dependentSchemas = { ...(schema.dependentSchemas as Json | undefined), [key!]: absent(peers) };
  }
};

const toJson = (description: unknown) => joiToJson({ describe: () => description } as unknown as Describable, 'open-api-3.1', {}, { logicalOpParser: LOGICAL_OPERATORS });

/** Marks joi-to-json copies through (it keeps `x-` metas) for `named` to act on. */
const COMPONENT = 'x-component';
const MAP_VALUES = 'x-map-values';

export function isJoi(value: unknown): value is Schema {
  return Boolean(value && typeof value === 'object' && 'describe' in value && '$_root' in value);
}

/**
 * A joi description with what joi-to-json cannot express marked or removed for `named`: a `.label()`
 * (the resource's name); a map, `Joi.object().pattern(Joi.string(), value)`, whose values have a
 * schema but whose keys are free (joi-to-json would publish an object that allows no keys); a value
 * that must equal a sibling (`valid(Joi.ref('password'))`, which joi-to-json would publish as "an
 * object equal to { ref }": it is documented as its type, its description says what it must equal).
 */
function marked(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(marked);
  if (!node || typeof node !== 'object') return node;
  const copy = Object.fromEntries(Object.entries(withoutWhens(node as Json)).map(([key, value]) => [key, marked(value)])) as Json;
  if (typeof copy.type !== 'string') return copy;
  const allow = copy.allow as unknown[] | undefined;
  if (allow?.some(isReference)) {
    const literal = allow.filter((value) => !isReference(value));
    if (literal.length) copy.allow = literal;
    else {
      delete copy.allow;
      copy.flags = { ...(copy.flags as Json | undefined), only: undefined };
    }
  }
  const metas = [...((copy.metas as Json[] | undefined) ?? [])];
  const label = (copy.flags as Json | undefined)?.label;
  if (typeof label === 'string') metas.push({ [COMPONENT]: label });
  const patterns = copy.patterns as Array<{ schema?: unknown; regex?: unknown; rule: unknown }> | undefined;
  if (copy.type === 'object' && patterns?.length === 1 && patterns[0]!.schema && patterns[0]!.regex === undefined) {
    metas.push({ [MAP_VALUES]: patterns[0]!.rule });
    delete copy.patterns;
  }
  if (metas.length) copy.metas = metas;
  return copy;
}

const isReference = (value: unknown) => Boolean(value && typeof value === 'object' && 'ref' in value);

interface WhenDescription {
  then?: Json;
  otherwise?: Json;
  switch?: Array<{ then?: Json; otherwise?: Json }>;
}

/**
 * A joi description without its `.when()` rules, which joi-to-json publishes as a value of any type.
 * A rule that depends on a sibling (discount `value` by `type`, a variant's `price` required only
 * without an `id`) becomes the types the value may take: the base schema when it has a type (the
 * branches only add presence or rules), else the typed branches (one, or `anyOf` several). Branches
 * that only require or strip the value say nothing about its type; a conditional `required` cannot be
 * said in OpenAPI, so the value is documented as optional and its description says when it is needed.
 */
function withoutWhens(node: Json): Json {
  const whens = node.whens as WhenDescription[] | undefined;
  if (typeof node.type !== 'string' || !whens?.length) return node;
  const { whens: _whens, ...base } = node;
  if (base.type !== 'any') return base;
  const typed = whens
    .flatMap((when) => [when.then, when.otherwise, ...(when.switch ?? []).flatMap((branch) => [branch.then, branch.otherwise])])
    .filter((branch): branch is Json => Boolean(branch) && branch!.type !== 'any')
    .map((branch) => ({ ...branch, flags: { ...(branch.flags as Json | undefined), presence: undefined } }));
  if (!typed.length) return base;
  const flags = { ...(base.flags as Json | undefined), presence: undefined };
  const allow = base.allow ? { allow: base.allow } : {};
  if (typed.length === 1) return { ...typed[0], flags: { ...typed[0]!.flags, ...flags }, ...allow };
  return { type: 'alternatives', flags, matches: typed.map((schema) => ({ schema })), ...allow };
}

/** `type: ['object', 'null']` → `{ type: 'object' }` and true; a schema that takes no null as it is. */
function withoutNull(schema: Json): { shape: Json; nullable: boolean } {
  const type = schema.type;
  if (!Array.isArray(type) || !type.includes('null')) return { shape: schema, nullable: false };
  const rest = type.filter((item) => item !== 'null');
  const shape: Json = { ...schema, type: rest.length === 1 ? rest[0] : rest };
  if (Array.isArray(shape.enum)) shape.enum = shape.enum.filter((value: unknown) => value !== null);
  return { shape, nullable: true };
}

/**
 * What joi-to-json writes that JSON Schema tools refuse or warn about, said plainly: an alternative
 * that is only `null` (`Joi.any().valid(null)`: `{ enum: [null], anyOf: [] }`, and an empty `anyOf`
 * is no JSON Schema) is `{ type: 'null' }`; `Joi.number().greater(0)` is `exclusiveMinimum: 0`
 * alone (joi-to-json adds an equal `minimum`, which Redocly flags as mixed constraints).
 */
function tidy(node: Json): Json {
  const out = { ...node };
  if (typeof out.exclusiveMinimum === 'number' && out.minimum === out.exclusiveMinimum) delete out.minimum;
  if (typeof out.exclusiveMaximum === 'number' && out.maximum === out.exclusiveMaximum) delete out.maximum;
  if (Array.isArray(out.anyOf) && out.anyOf.length === 0) delete out.anyOf;
  if (Array.isArray(out.enum) && out.enum.length === 1 && out.enum[0] === null && out.type === undefined) {
    delete out.enum;
    out.type = 'null';
  }
  if (out.const === null && out.type === undefined) {
    delete out.const;
    out.type = 'null';
  }
  return out;
}

/**
 * The OpenAPI 3.1 schema of a joi schema. Every labelled schema becomes a named component (`$ref`;
 * a nullable use is `anyOf: [{ $ref }, { type: 'null' }]`), so a client generator makes one type
 * per resource, named as the label says. Two different schemas under one label are a mistake a
 * generated client would hide, so they fail the document.
 */
export function toOpenApi(schema: Describable, components: Record<string, Json>): Json {
  const named = (node: unknown): unknown => {
    if (Array.isArray(node)) return node.map(named);
    if (!node || typeof node !== 'object') return node;
    const { [COMPONENT]: name, [MAP_VALUES]: mapValues, ...rest } = node as Json;
    const out = tidy(Object.fromEntries(Object.entries(rest).map(([key, value]) => [key, named(value)])) as Json);
    if (mapValues !== undefined) {
      out.additionalProperties = named(toJson(marked(mapValues)));
      if (isDeepStrictEqual(out.properties, {})) delete out.properties;
    }
    if (typeof name !== 'string') return out;
    const { shape, nullable } = withoutNull(out);
    const known = components[name];
    if (known && !isDeepStrictEqual(known, shape)) {
      throw new Error(`OpenAPI: two different schemas are labelled ${name}; give them different labels or share one schema`);
    }
    components[name] = shape;
    const ref = { $ref: `#/components/schemas/${name}` };
    return nullable ? { anyOf: [ref, { type: 'null' }] } : ref;
  };
  return named(toJson(marked(schema.describe()))) as Json;
}
