// Package kubernetes holds the Kubernetes manifests of a sharded run (an
// Indexed Job of run-benchmark -shard i/n and a merge Job; see README.md)
// and the test that decodes them with the k8s.io/api types. It is a module
// of its own, so that the project's go.mod does not take the Kubernetes
// dependencies; make test runs its test (deploy/deploy_test.go).
package kubernetes
