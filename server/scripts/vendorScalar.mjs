// Copies the Scalar API reference's standalone bundle (one self-contained script) into vendor/,
// which the package ships. The reference page serves that copy, so a host installing the package
// does not install @scalar/api-reference and its ~300 dependencies for one file.
import { copyFileSync, mkdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const server = join(dirname(fileURLToPath(import.meta.url)), '..');
const source = createRequire(join(server, 'package.json')).resolve('@scalar/api-reference/browser/standalone.js');
mkdirSync(join(server, 'vendor'), { recursive: true });
copyFileSync(source, join(server, 'vendor', 'scalar-standalone.js'));
