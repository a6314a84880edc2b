// deploy-check decodes every object of a rendered manifest stream (helm template's output, on stdin) strictly
// into its API type: a field the type does not have (misspelt, wrongly nested, from another API version) fails, as
// does a kind this checker does not know. It prints one line per object checked and exits 1 on any failure.
//
// `deploy-check json` prints the YAML documents on stdin as one JSON array instead (YAML merge keys resolved), so
// the tests read rendered manifests and the compose file without a YAML parser of their own.
package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	kedav1alpha1 "github.com/kedacore/keda/v2/apis/keda/v1alpha1"
	monitoringv1 "github.com/prometheus-operator/prometheus-operator/pkg/apis/monitoring/v1"
	appsv1 "k8s.io/api/apps/v1"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	policyv1 "k8s.io/api/policy/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	kjson "sigs.k8s.io/json"
	"sigs.k8s.io/yaml"
)

// types: apiVersion/kind → a new value of its Go type.
var types = map[string]func() any{
	"v1/ConfigMap":                             func() any { return &corev1.ConfigMap{} },
	"v1/Secret":                                func() any { return &corev1.Secret{} },
	"v1/Service":                               func() any { return &corev1.Service{} },
	"v1/ServiceAccount":                        func() any { return &corev1.ServiceAccount{} },
	"v1/Pod":                                   func() any { return &corev1.Pod{} },
	"apps/v1/Deployment":                       func() any { return &appsv1.Deployment{} },
	"batch/v1/Job":                             func() any { return &batchv1.Job{} },
	"autoscaling/v2/HorizontalPodAutoscaler":   func() any { return &autoscalingv2.HorizontalPodAutoscaler{} },
	"policy/v1/PodDisruptionBudget":            func() any { return &policyv1.PodDisruptionBudget{} },
	"networking.k8s.io/v1/Ingress":             func() any { return &networkingv1.Ingress{} },
	"networking.k8s.io/v1/NetworkPolicy":       func() any { return &networkingv1.NetworkPolicy{} },
	"rbac.authorization.k8s.io/v1/Role":        func() any { return &rbacv1.Role{} },
	"rbac.authorization.k8s.io/v1/RoleBinding": func() any { return &rbacv1.RoleBinding{} },
	"keda.sh/v1alpha1/ScaledObject":            func() any { return &kedav1alpha1.ScaledObject{} },
	"keda.sh/v1alpha1/TriggerAuthentication":   func() any { return &kedav1alpha1.TriggerAuthentication{} },
	"monitoring.coreos.com/v1/ServiceMonitor":  func() any { return &monitoringv1.ServiceMonitor{} },
	"monitoring.coreos.com/v1/PodMonitor":      func() any { return &monitoringv1.PodMonitor{} },
}

func main() {
	docs, err := split(os.Stdin)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	if len(os.Args) > 1 && os.Args[1] == "json" {
		if err := printJSON(docs); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		return
	}
	failed := 0
	for i, doc := range docs {
		name, err := check(doc)
		if err != nil {
			failed++
			fmt.Printf("FAIL %s (document %d): %v\n", name, i+1, err)
			continue
		}
		fmt.Printf("ok   %s\n", name)
	}
	if failed > 0 {
		os.Exit(1)
	}
}

// split cuts a YAML stream at its `---` lines, dropping documents with nothing but comments.
func split(r io.Reader) ([][]byte, error) {
	var docs [][]byte
	var cur bytes.Buffer
	flush := func() {
		if strings.TrimSpace(stripComments(cur.String())) != "" {
			docs = append(docs, append([]byte(nil), cur.Bytes()...))
		}
		cur.Reset()
	}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "---") {
			flush()
			continue
		}
		cur.WriteString(line)
		cur.WriteByte('\n')
	}
	flush()
	return docs, sc.Err()
}

func stripComments(s string) string {
	var out []string
	for _, l := range strings.Split(s, "\n") {
		if !strings.HasPrefix(strings.TrimSpace(l), "#") {
			out = append(out, l)
		}
	}
	return strings.Join(out, "\n")
}

func check(doc []byte) (string, error) {
	var head struct {
		APIVersion string `json:"apiVersion"`
		Kind       string `json:"kind"`
		Metadata   struct {
			Name string `json:"name"`
		} `json:"metadata"`
	}
	if err := yaml.Unmarshal(doc, &head); err != nil {
		return "?", err
	}
	key := head.APIVersion + "/" + head.Kind
	name := key + " " + head.Metadata.Name
	newValue, known := types[key]
	if !known {
		return name, fmt.Errorf("no API type known for %s", key)
	}
	if head.Metadata.Name == "" {
		return name, fmt.Errorf("metadata.name is empty")
	}
	// Strict as the API server's fieldValidation=Strict: a duplicate key, or a field the Go type does not have, or
	// has in another case (encoding/json would match `coolDownPeriod` to `cooldownPeriod`), is an error.
	asJSON, err := yaml.YAMLToJSONStrict(doc)
	if err != nil {
		return name, err
	}
	strict, err := kjson.UnmarshalStrict(asJSON, newValue(), kjson.DisallowDuplicateFields, kjson.DisallowUnknownFields)
	if err != nil {
		return name, err
	}
	return name, errors.Join(strict...)
}

func printJSON(docs [][]byte) error {
	out := make([]json.RawMessage, 0, len(docs))
	for _, doc := range docs {
		asJSON, err := yaml.YAMLToJSONStrict(doc)
		if err != nil {
			return err
		}
		out = append(out, asJSON)
	}
	return json.NewEncoder(os.Stdout).Encode(out)
}
