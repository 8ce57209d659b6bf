// Reads TypeScript declaration files of the restricted kind web/lib's are written in, and checks
// JSON values against the types they declare: every key of an object must be declared, every
// required key present, every value of its declared type. Enough of TypeScript for that:
// interfaces (with extends), type aliases, primitives, literals, unions, arrays, tuples, object
// literals, Partial<T>, Record<string, T>, Promise<T> and function types. Not a test file itself.

// ---------------------------------------------------------------- reading

function tokenize(text) {
  const src = text.replace(/\/\*[\s\S]*?\*\//g, ' ').replace(/\/\/[^\n]*/g, ' ');
  const tokens = [];
  const re = /\s*(=>|'[^']*'|"[^"]*"|-?\d+(?:\.\d+)?|[A-Za-z_$][\w$]*|\.\.\.|[{}()[\]<>|&;:?,=.*])/gy;
  let m;
  let at = 0;
  while (at < src.length) {
    re.lastIndex = at;
    m = re.exec(src);
    if (!m) {
      if (/^\s*$/.test(src.slice(at))) break;
      throw new Error(`cannot read the declarations at "${src.slice(at, at + 40)}"`);
    }
    tokens.push(m[1]);
    at = re.lastIndex;
  }
  return tokens;
}

/** Parses declaration texts into {types: Map(name -> type), values: Set(name), members: Map(interface -> member names)}. */
export function readDeclarations(...texts) {
  const types = new Map();
  const values = new Set();
  for (const text of texts) {
    const t = tokenize(text);
    let i = 0;
    const peek = (k = 0) => t[i + k];
    const next = () => t[i++];
    const expect = (tok) => {
      if (t[i] !== tok) throw new Error(`expected "${tok}" but found "${t[i]}" after "${t.slice(Math.max(0, i - 6), i).join(' ')}"`);
      i++;
    };
    const typeList = (close) => {
      const out = [union()];
      while (peek() === ',') {
        next();
        if (peek() === close) break;
        out.push(union());
      }
      return out;
    };
    function members() {
      expect('{');
      const list = [];
      while (peek() !== '}') {
        if (peek() === 'readonly') next();
        const name = next().replace(/^['"]|['"]$/g, '');
        const optional = peek() === '?';
        if (optional) next();
        if (peek() === '(') {
          skipParens();
          expect(':');
          list.push({ name, optional, type: { kind: 'function', returns: union() } });
        } else {
          expect(':');
          list.push({ name, optional, type: union() });
        }
        if (peek() === ';' || peek() === ',') next();
      }
      expect('}');
      return list;
    }
    function skipParens() {
      expect('(');
      for (let depth = 1; depth > 0; ) {
        const tok = next();
        if (tok === '(') depth++;
        else if (tok === ')') depth--;
      }
    }
    function primary() {
      const tok = peek();
      if (tok === '{') return { kind: 'object', members: members() };
      if (tok === '[') {
        next();
        const items = typeList(']');
        expect(']');
        return { kind: 'tuple', items };
      }
      if (tok === '(') {
        // A function type "(a: A) => R", or a type in parentheses.
        const close = t.indexOf(')', i);
        if (t[close + 1] === '=>') {
          skipParens();
          expect('=>');
          return { kind: 'function', returns: union() };
        }
        next();
        const inner = union();
        expect(')');
        return inner;
      }
      next();
      if (/^['"]/.test(tok)) return { kind: 'literal', value: tok.slice(1, -1) };
      if (/^-?\d/.test(tok)) return { kind: 'literal', value: Number(tok) };
      if (['string', 'number', 'boolean', 'null', 'unknown', 'undefined', 'void'].includes(tok)) return { kind: tok };
      const args = peek() === '<' ? (next(), typeList('>')) : [];
      if (args.length) expect('>');
      return { kind: 'ref', name: tok, args };
    }
    function postfix() {
      let type = primary();
      while (peek() === '[' && peek(1) === ']') {
        next();
        next();
        type = { kind: 'array', of: type };
      }
      return type;
    }
    function union() {
      if (peek() === '|') next();
      const options = [postfix()];
      while (peek() === '|') {
        next();
        options.push(postfix());
      }
      return options.length === 1 ? options[0] : { kind: 'union', options };
    }
    while (i < t.length) {
      const tok = next();
      if (tok === 'import') {
        while (next() !== ';');
      } else if (tok === 'export' && (peek() === '*' || peek() === '{')) {
        // Re-exports: export * from '...'; export { A } from '...'.
        if (peek() === '{') {
          next();
          while (peek() !== '}') {
            const name = next();
            if (name !== ',') values.add(name);
          }
        }
        while (next() !== ';');
      } else if (tok === 'interface') {
        const name = next();
        const bases = [];
        if (peek() === 'extends') {
          next();
          bases.push(...typeList('{'));
        }
        types.set(name, { kind: 'object', members: members(), bases });
      } else if (tok === 'type') {
        const name = next();
        expect('=');
        types.set(name, union());
        expect(';');
      } else if (tok === 'function') {
        const name = next();
        values.add(name);
        skipParens();
        expect(':');
        union();
        expect(';');
      } else if (tok === 'class') {
        const name = next();
        values.add(name);
        if (peek() === 'extends') {
          next();
          next();
        }
        // A class body: its members, constructor included.
        expect('{');
        for (let depth = 1; depth > 0; ) {
          const b = next();
          if (b === '{') depth++;
          else if (b === '}') depth--;
        }
      }
    }
  }
  return { types, values };
}

// ---------------------------------------------------------------- checking

/** The members of an object type, its bases' included; Partial<T> bases make theirs optional. */
function objectMembers(decl, type) {
  const out = new Map();
  const add = (list, optional) => {
    for (const m of list) out.set(m.name, optional ? { ...m, optional: true } : m);
  };
  for (const base of type.bases || []) {
    const partial = base.kind === 'ref' && base.name === 'Partial';
    const resolved = resolve(decl, partial ? base.args[0] : base);
    add([...objectMembers(decl, resolved).values()], partial);
  }
  add(type.members, false);
  return out;
}

function resolve(decl, type) {
  if (type.kind !== 'ref' || ['Partial', 'Record', 'Promise', 'Array'].includes(type.name)) return type;
  const found = decl.types.get(type.name);
  if (!found) throw new Error(`the declarations do not define ${type.name}`);
  return resolve(decl, found);
}

/** The members of the interface or object type called `name`: Map(name -> {optional, type}). */
export function membersOf(decl, name) {
  return objectMembers(decl, resolve(decl, { kind: 'ref', name, args: [] }));
}

/**
 * Checks `value` against `type` (a name or a parsed type); returns the problems, each naming the
 * path in the value, e.g. "result.config.plan.zero_stage: 2 is not 0 | 1".
 */
export function check(decl, value, type, where = 'value') {
  const t = typeof type === 'string' ? { kind: 'ref', name: type, args: [] } : type;
  const problems = [];
  const fail = (what) => problems.push(`${where}: ${what}`);
  const show = (v) => JSON.stringify(v)?.slice(0, 60);
  switch (t.kind) {
    case 'string':
    case 'number':
    case 'boolean':
      if (typeof value !== t.kind) fail(`${show(value)} is not a ${t.kind}`);
      break;
    case 'null':
      if (value !== null) fail(`${show(value)} is not null`);
      break;
    case 'unknown':
      break;
    case 'literal':
      if (value !== t.value) fail(`${show(value)} is not ${show(t.value)}`);
      break;
    case 'function':
      if (typeof value !== 'function') fail('is not a function');
      break;
    case 'array':
      if (!Array.isArray(value)) fail(`${show(value)} is not an array`);
      else value.forEach((v, i) => problems.push(...check(decl, v, t.of, `${where}[${i}]`)));
      break;
    case 'tuple':
      if (!Array.isArray(value) || value.length !== t.items.length) fail(`${show(value)} is not a tuple of ${t.items.length}`);
      else value.forEach((v, i) => problems.push(...check(decl, v, t.items[i], `${where}[${i}]`)));
      break;
    case 'union': {
      const each = t.options.map((o) => check(decl, value, o, where));
      if (!each.some((p) => p.length === 0)) {
        // The alternative that came closest says what is wrong.
        problems.push(...each.sort((a, b) => a.length - b.length)[0]);
      }
      break;
    }
    case 'object': {
      if (value === null || typeof value !== 'object' || Array.isArray(value)) {
        fail(`${show(value)} is not an object`);
        break;
      }
      const members = objectMembers(decl, t);
      for (const key of Object.keys(value)) {
        if (!members.has(key)) fail(`has "${key}", which the declarations do not name`);
      }
      for (const [key, m] of members) {
        if (!(key in value)) {
          if (!m.optional) fail(`lacks "${key}"`);
        } else {
          problems.push(...check(decl, value[key], m.type, `${where}.${key}`));
        }
      }
      break;
    }
    case 'ref':
      if (t.name === 'Partial') {
        const inner = resolve(decl, t.args[0]);
        problems.push(...check(decl, value, { kind: 'object', members: [], bases: [{ kind: 'ref', name: 'Partial', args: [inner] }] }, where));
      } else if (t.name === 'Record') {
        if (value === null || typeof value !== 'object') fail(`${show(value)} is not an object`);
        else for (const [k, v] of Object.entries(value)) problems.push(...check(decl, v, t.args[1], `${where}.${k}`));
      } else {
        problems.push(...check(decl, value, resolve(decl, t), where));
      }
      break;
    default:
      fail(`the checker does not know type ${t.kind}`);
  }
  return problems;
}
