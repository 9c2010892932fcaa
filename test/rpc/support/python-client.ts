import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { TEST_SERVICE_PROTO } from '../../../src/rpc/package-definitions.ts';
import { scratchDir } from '../../support/scratch-dir.ts';

const run = promisify(execFile);
// Debian's interpreter: the python3 first on PATH may be another one that cannot see python3-grpcio.
const PYTHON = '/usr/bin/python3';
const PLUGIN = '/usr/bin/grpc_python_plugin';
const SCRIPT = fileURLToPath(new URL('../python/test-service-client.py', import.meta.url));

/** Generates the Python stubs, or says which Debian package is missing (.ci/run installs them). */
export async function preparePythonClient(): Promise<{ stubs: string } | { missing: string }> {
  if (!existsSync(PYTHON)) return { missing: `${PYTHON} not found (Debian python3)` };
  if (!existsSync(PLUGIN)) return { missing: `${PLUGIN} not found (Debian protobuf-compiler-grpc)` };
  try {
    await run(PYTHON, ['-c', 'import grpc, google.protobuf']);
  } catch {
    return { missing: `${PYTHON} cannot import grpc (Debian python3-grpcio)` };
  }
  const stubs = scratchDir('cf-py-stubs-');
  const protoDir = fileURLToPath(new URL('.', `file://${TEST_SERVICE_PROTO}`));
  try {
    await run('protoc', [`-I${protoDir}`, `--python_out=${stubs}`, `--grpc_out=${stubs}`, `--plugin=protoc-gen-grpc=${PLUGIN}`, TEST_SERVICE_PROTO]);
  } catch (error) {
    return { missing: `protoc could not generate stubs (Debian protobuf-compiler): ${(error as Error).message}` };
  }
  return { stubs };
}

/** Runs one mode of test-service-client.py and returns the JSON it prints. */
export async function runPythonClient(stubs: string, args: readonly string[], timeoutMs = 60_000): Promise<Record<string, unknown>> {
  const { stdout } = await run(PYTHON, [SCRIPT, ...args], {
    env: { ...process.env, PYTHONPATH: stubs },
    timeout: timeoutMs,
    maxBuffer: 16 * 1024 * 1024,
  });
  return JSON.parse(stdout.trim().split('\n').at(-1)!) as Record<string, unknown>;
}
