import { execFile } from 'node:child_process';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** PEM files made for one test run: a CA, a server certificate it issued, a self-signed one. */
export interface TestCertificates {
  /** The test CA's certificate file (what an environment's caCertificatePath names). */
  caPath: string;
  /** A second CA that issued nothing the servers present. */
  otherCaPath: string;
  /** Key and certificate for 127.0.0.1 / localhost, issued by the test CA. */
  issued: { key: string; cert: string };
  /** Key and certificate for 127.0.0.1 / localhost, signed by itself. */
  selfSigned: { key: string; cert: string };
}

const EC = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'];
const SERVER_NAMES = 'subjectAltName=IP:127.0.0.1,DNS:localhost';

/** Makes the certificates with the `openssl` command line in `dir` (valid for two days). */
export async function makeTestCertificates(dir: string): Promise<TestCertificates> {
  const p = (name: string) => join(dir, name);
  const ca = ['-addext', 'basicConstraints=critical,CA:TRUE', '-addext', 'keyUsage=critical,keyCertSign,cRLSign'];
  await run('openssl', ['req', '-x509', ...EC, '-keyout', p('ca.key'), '-out', p('ca.pem'), '-days', '2', '-subj', '/CN=Svc Monitor Test CA', ...ca]);
  await run('openssl', ['req', '-x509', ...EC, '-keyout', p('other-ca.key'), '-out', p('other-ca.pem'), '-days', '2', '-subj', '/CN=Another Test CA', ...ca]);
  await run('openssl', ['req', ...EC, '-keyout', p('server.key'), '-out', p('server.csr'), '-subj', '/CN=127.0.0.1']);
  await writeFile(p('server.ext'), `${SERVER_NAMES}\nbasicConstraints=CA:FALSE\nextendedKeyUsage=serverAuth\n`);
  await run('openssl', ['x509', '-req', '-in', p('server.csr'), '-CA', p('ca.pem'), '-CAkey', p('ca.key'), '-CAcreateserial', '-out', p('server.pem'), '-days', '2', '-extfile', p('server.ext')]);
  await run('openssl', ['req', '-x509', ...EC, '-keyout', p('self.key'), '-out', p('self.pem'), '-days', '2', '-subj', '/CN=127.0.0.1', '-addext', SERVER_NAMES]);
  const read = (name: string) => readFile(p(name), 'utf8');
  return {
    caPath: p('ca.pem'),
    otherCaPath: p('other-ca.pem'),
    issued: { key: await read('server.key'), cert: await read('server.pem') },
    selfSigned: { key: await read('self.key'), cert: await read('self.pem') },
  };
}
