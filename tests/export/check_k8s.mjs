// Schema check of `sailor export --format kubernetes` (issue 26): every document of the YAML
// file named on the command line is parsed (YAML 1.2, the `yaml` package) and validated against
// Kubernetes' OpenAPI schema for its apiVersion and kind (the `kubernetes-models` package,
// offline: its classes carry the schemas). Prints one line per object; exits 1 on the first
// invalid one, 2 when the file cannot be read.
import { readFileSync } from "node:fs";
import { parseAllDocuments } from "yaml";
import { ConfigMap, Service } from "kubernetes-models/v1";
import { Job } from "kubernetes-models/batch/v1";

const models = { "v1/ConfigMap": ConfigMap, "v1/Service": Service, "batch/v1/Job": Job };

let text;
try {
  text = readFileSync(process.argv[2], "utf8");
} catch (e) {
  console.error(`check_k8s: ${e.message}`);
  process.exit(2);
}
let count = 0;
for (const doc of parseAllDocuments(text)) {
  if (doc.errors.length) {
    console.error(`check_k8s: YAML error: ${doc.errors[0].message}`);
    process.exit(1);
  }
  const obj = doc.toJS();
  if (obj === null) continue;
  const key = `${obj.apiVersion}/${obj.kind}`;
  const Model = models[key];
  if (!Model) {
    console.error(`check_k8s: unexpected object ${key}`);
    process.exit(1);
  }
  try {
    new Model(obj).validate();
  } catch (e) {
    console.error(`check_k8s: ${key} ${obj.metadata?.name}: ${e.message}`);
    process.exit(1);
  }
  console.log(`valid ${key} ${obj.metadata.name}`);
  ++count;
}
if (count === 0) {
  console.error("check_k8s: no object in the file");
  process.exit(1);
}
