import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
export const TEMPLATE_DIR = path.join(ROOT, 'var', 'test');
export const TEMPLATE_FILE = path.join(TEMPLATE_DIR, 'pglite-template.tar.gz');
/** The same database as a data folder of the embedded engine: copied into a test's data_dir, a start skips initdb. */
export const TEMPLATE_DATA_DIR = path.join(TEMPLATE_DIR, 'embedded-db');
