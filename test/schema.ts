/** A minimal JSON Schema (draft 2020-12) validator for the keywords docs/*.schema.json use. */
// ---- a minimal JSON Schema (draft 2020-12) validator for the keywords the schema uses ----
export type Schema = Record<string, unknown>;
export function validate(schema: Schema, root: Schema, x: unknown, path = "$"): string[] {
  if (typeof schema.$ref === "string") {
    const name = schema.$ref.replace("#/$defs/", "");
    return validate((root.$defs as Record<string, Schema>)[name]!, root, x, path);
  }
  const errs: string[] = [];
  if ("const" in schema && x !== schema.const) errs.push(`${path}: expected ${JSON.stringify(schema.const)}`);
  if (Array.isArray(schema.enum) && !schema.enum.includes(x)) errs.push(`${path}: ${JSON.stringify(x)} not in enum`);
  if (Array.isArray(schema.oneOf)) {
    const ok = (schema.oneOf as Schema[]).filter((s) => validate(s, root, x, path).length === 0).length;
    if (ok !== 1) errs.push(`${path}: matches ${ok} of oneOf`);
  }
  const t = schema.type;
  if (t !== undefined) {
    const is = x === null ? "null" : Array.isArray(x) ? "array" : Number.isInteger(x) ? "integer" : typeof x;
    if (!(is === t || (t === "number" && is === "integer"))) return [...errs, `${path}: type ${is}, expected ${String(t)}`];
  }
  if (typeof schema.minimum === "number" && typeof x === "number" && x < schema.minimum) errs.push(`${path}: below minimum`);
  if (typeof schema.pattern === "string" && typeof x === "string" && !new RegExp(schema.pattern, "u").test(x)) errs.push(`${path}: ${x} does not match ${schema.pattern}`);
  if (Array.isArray(x)) {
    if (typeof schema.minItems === "number" && x.length < schema.minItems) errs.push(`${path}: too few items`);
    if (schema.items) x.forEach((e, i) => errs.push(...validate(schema.items as Schema, root, e, `${path}[${i}]`)));
  } else if (x !== null && typeof x === "object") {
    const o = x as Record<string, unknown>;
    for (const r of (schema.required as string[] | undefined) ?? []) if (!(r in o)) errs.push(`${path}: missing ${r}`);
    const props = (schema.properties as Record<string, Schema> | undefined) ?? {};
    for (const [k, v] of Object.entries(o)) {
      if (props[k]) errs.push(...validate(props[k], root, v, `${path}.${k}`));
      else if (schema.additionalProperties === false) errs.push(`${path}: unexpected ${k}`);
      else if (typeof schema.additionalProperties === "object") errs.push(...validate(schema.additionalProperties as Schema, root, v, `${path}.${k}`));
    }
  }
  return errs;
}
