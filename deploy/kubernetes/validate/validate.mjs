// Validates Kubernetes objects against their schemas: the kubernetes-models validators (compiled
// from Kubernetes' OpenAPI schemas, and from the Prometheus Operator's and Strimzi's CRDs), which
// check types, required fields, enums and formats (they accept unknown fields, as the schemas do).
//
//   node validate.mjs objects.json
//
// objects.json: a JSON array of objects (KubernetesManifestsTest renders deploy/kubernetes with
// kubectl kustomize and writes it). Prints one JSON line per object, {apiVersion, kind, name,
// valid, errors}, and exits 1 when any object is invalid or has no schema here.
import { readFileSync } from "node:fs";

/** The kubernetes-models module of an apiVersion. */
function moduleOf(apiVersion) {
  const slash = apiVersion.indexOf("/");
  const group = slash < 0 ? "" : apiVersion.slice(0, slash);
  if (group === "monitoring.coreos.com") {
    return `@kubernetes-models/prometheus-operator/${apiVersion}`;
  }
  if (group === "kafka.strimzi.io" || group === "core.strimzi.io") {
    return `@kubernetes-models/strimzi-kafka-operator/${apiVersion}`;
  }
  return `kubernetes-models/${apiVersion}`;
}

async function check(object) {
  const { apiVersion, kind } = object;
  const line = { apiVersion, kind, name: object.metadata?.name ?? null, valid: false, errors: "" };
  let model;
  try {
    const module = await import(moduleOf(String(apiVersion)));
    model = module[kind] ?? module.default?.[kind];
  } catch (e) {
    line.errors = `no schema for ${apiVersion}: ${e.message}`;
    return line;
  }
  if (typeof model !== "function" || model.apiVersion !== apiVersion || model.kind !== kind) {
    line.errors = `no schema for ${apiVersion} ${kind}`;
    return line;
  }
  try {
    new model(object).validate();
    line.valid = true;
  } catch (e) {
    line.errors = e.message;
  }
  return line;
}

const objects = JSON.parse(readFileSync(process.argv[2], "utf8"));
let invalid = 0;
for (const object of objects) {
  const line = await check(object);
  invalid += line.valid ? 0 : 1;
  console.log(JSON.stringify(line));
}
process.exitCode = invalid === 0 ? 0 : 1;
