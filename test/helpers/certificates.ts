import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/** A certificate and its key, as files. */
export interface Issued {
  cert: string;
  key: string;
}

/** A certificate authority of a test, made with openssl: it issues server and client certificates into `dir`. */
export interface TestCa extends Issued {
  name: string;
  /** A server certificate for 127.0.0.1, localhost and `names` (host names, or IPv4 addresses). */
  server(file: string, names?: string[]): Issued;
  /** A client certificate (mTLS) with this common name; `expired`: valid only in 2020. */
  client(file: string, commonName: string, options?: { expired?: boolean }): Issued;
}

function openssl(args: string[], cwd: string): void {
  execFileSync('openssl', args, { cwd, stdio: ['ignore', 'pipe', 'pipe'] });
}

/** The openssl configuration of `openssl ca`, the one command of OpenSSL 3.0 that sets start and end dates. */
function caConfig(dir: string): string {
  const file = path.join(dir, 'ca.cnf');
  writeFileSync(
    file,
    [
      '[ca]',
      'default_ca = test_ca',
      '[test_ca]',
      `dir = ${dir}`,
      'database = $dir/index.txt',
      'new_certs_dir = $dir/issued',
      'serial = $dir/serial',
      'default_md = sha256',
      'policy = any',
      'copy_extensions = copy',
      'unique_subject = no',
      '[any]',
      'commonName = supplied',
      '',
    ].join('\n'),
  );
  return file;
}

/** A new CA in a directory of its own under `root` (a temporary one when omitted). */
export function makeTestCa(name: string, root = mkdtempSync(path.join(os.tmpdir(), 'mos-pki-'))): TestCa {
  const dir = path.join(root, name);
  mkdirSync(path.join(dir, 'issued'), { recursive: true });
  writeFileSync(path.join(dir, 'index.txt'), '');
  writeFileSync(path.join(dir, 'serial'), '1000\n');
  const config = caConfig(dir);
  const cert = path.join(dir, 'ca.pem');
  const key = path.join(dir, 'ca.key');
  openssl(['ecparam', '-name', 'prime256v1', '-genkey', '-noout', '-out', key], dir);
  openssl(['req', '-x509', '-new', '-key', key, '-sha256', '-days', '30', '-subj', `/CN=${name}`, '-out', cert], dir);

  const issue = (file: string, commonName: string, extensions: string[], dates: string[]): Issued => {
    const out = path.join(dir, `${file}.pem`);
    const outKey = path.join(dir, `${file}.key`);
    const csr = path.join(dir, `${file}.csr`);
    openssl(['ecparam', '-name', 'prime256v1', '-genkey', '-noout', '-out', `${outKey}.ec`], dir);
    // PKCS#8, the form every TLS stack here reads (the Rust core's among them).
    openssl(['pkcs8', '-topk8', '-nocrypt', '-in', `${outKey}.ec`, '-out', outKey], dir);
    openssl(['req', '-new', '-key', outKey, '-subj', `/CN=${commonName}`, ...extensions.flatMap((e) => ['-addext', e]), '-out', csr], dir);
    openssl(['ca', '-batch', '-config', config, '-notext', '-cert', cert, '-keyfile', key, '-in', csr, '-out', out, ...dates], dir);
    return { cert: out, key: outKey };
  };
  return {
    name,
    cert,
    key,
    server: (file, names = []) =>
      issue(
        file,
        'temporal-frontend',
        [
          `subjectAltName = ${['IP:127.0.0.1', 'DNS:localhost', ...names.map((n) => (/^\d+(\.\d+){3}$/.test(n) ? `IP:${n}` : `DNS:${n}`))].join(', ')}`,
          'extendedKeyUsage = serverAuth, clientAuth',
        ],
        ['-days', '30'],
      ),
    client: (file, commonName, options = {}) =>
      issue(
        file,
        commonName,
        ['extendedKeyUsage = clientAuth'],
        options.expired ? ['-startdate', '20200101000000Z', '-enddate', '20200102000000Z'] : ['-days', '30'],
      ),
  };
}

/** Copies a certificate and key over the files of another, in place, as cert-manager and Vault do. */
export function rotateInPlace(target: Issued, source: Issued): void {
  writeFileSync(target.cert, readFileSync(source.cert));
  writeFileSync(target.key, readFileSync(source.key));
}
