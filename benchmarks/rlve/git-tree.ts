/**
 * Git's object ids of files and folders, computed from their bytes: how a copy of RLVE's Gym/
 * is checked against the commit it is pinned to, whatever archive it came in (GitHub's archive
 * of the commit, the cache's own tarball, a mirror). A folder's id is that of the git tree
 * object: each entry `<mode> <name>\0<20-byte id>`, entries in git's order (a folder sorts as if
 * its name ended in `/`).
 */
import { createHash } from 'node:crypto';

export interface TreeFile {
  /** Path inside the folder, `/`-separated. */
  path: string;
  data: Buffer;
  executable?: boolean;
}

const sha1 = (...parts: Buffer[]): Buffer => {
  const hash = createHash('sha1');
  for (const part of parts) hash.update(part);
  return hash.digest();
};

/** The git blob id of a file's bytes (hex). */
export function blobId(data: Buffer): string {
  return sha1(Buffer.from(`blob ${data.length}\0`), data).toString('hex');
}

interface Folder {
  files: Map<string, TreeFile>;
  folders: Map<string, Folder>;
}

function treeOf(folder: Folder): Buffer {
  const entries: { key: string; line: Buffer }[] = [];
  for (const [name, file] of folder.files) {
    entries.push({ key: name, line: Buffer.concat([Buffer.from(`${file.executable ? '100755' : '100644'} ${name}\0`), Buffer.from(blobId(file.data), 'hex')]) });
  }
  for (const [name, sub] of folder.folders) {
    entries.push({ key: `${name}/`, line: Buffer.concat([Buffer.from(`40000 ${name}\0`), treeOf(sub)]) });
  }
  entries.sort((a, b) => Buffer.compare(Buffer.from(a.key), Buffer.from(b.key)));
  const body = Buffer.concat(entries.map((e) => e.line));
  return sha1(Buffer.from(`tree ${body.length}\0`), body);
}

/** The git tree id (hex) of a folder holding exactly these files (empty folders have no place in git). */
export function treeId(files: Iterable<TreeFile>): string {
  const root: Folder = { files: new Map(), folders: new Map() };
  for (const file of files) {
    const parts = file.path.split('/').filter(Boolean);
    let folder = root;
    for (const part of parts.slice(0, -1)) {
      let next = folder.folders.get(part);
      if (!next) folder.folders.set(part, (next = { files: new Map(), folders: new Map() }));
      folder = next;
    }
    folder.files.set(parts.at(-1)!, file);
  }
  return treeOf(root).toString('hex');
}
