import Database from 'better-sqlite3';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';

/** Every row of every table of one SQLite file, table by table, in a stable order (all columns sorted). */
export function tableRows(path: string): Record<string, unknown[]> {
  const db = new Database(path, { readonly: true, fileMustExist: true });
  try {
    const tables = db.prepare<[], { name: string }>("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name").all();
    const rows: Record<string, unknown[]> = {};
    for (const { name } of tables) {
      const columns = db.pragma(`table_info("${name}")`) as { name: string }[];
      const order = columns.map((column) => `"${column.name}"`).join(', ');
      rows[name] = db.prepare(`SELECT * FROM "${name}" ORDER BY ${order}`).all();
    }
    return rows;
  } finally {
    db.close();
  }
}

/** `tableRows` of each `.sqlite` file of a directory, by file name. */
export function storeRows(dir: string): Record<string, Record<string, unknown[]>> {
  const files = readdirSync(dir)
    .filter((name) => name.endsWith('.sqlite'))
    .sort();
  return Object.fromEntries(files.map((file) => [file, tableRows(join(dir, file))]));
}
