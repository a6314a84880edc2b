{{- define "mos.name" -}}{{ .Chart.Name | trunc 63 | trimSuffix "-" }}{{- end -}}

{{- define "mos.fullname" -}}
{{- if contains .Chart.Name .Release.Name -}}{{ .Release.Name | trunc 63 | trimSuffix "-" }}
{{- else -}}{{ printf "%s-%s" .Release.Name .Chart.Name | trunc 63 | trimSuffix "-" }}{{- end -}}
{{- end -}}

{{- define "mos.labels" -}}
app.kubernetes.io/name: {{ include "mos.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version }}
{{- end -}}

{{/* Selector labels of one component: api, worker or migrate. */}}
{{- define "mos.selector" -}}
app.kubernetes.io/name: {{ include "mos.name" .root }}
app.kubernetes.io/instance: {{ .root.Release.Name }}
app.kubernetes.io/component: {{ .component }}
{{- end -}}

{{- define "mos.image" -}}{{ .Values.image.repository }}:{{ .Values.image.tag | default .Chart.AppVersion }}{{- end -}}

{{- define "mos.secretName" -}}{{ .Values.secrets.existingSecret | default (printf "%s-secrets" (include "mos.fullname" .)) }}{{- end -}}

{{- define "mos.serviceAccountName" -}}
{{- if .Values.serviceAccount.create -}}{{ .Values.serviceAccount.name | default (include "mos.fullname" .) }}
{{- else -}}{{ .Values.serviceAccount.name | default "default" }}{{- end -}}
{{- end -}}

{{- define "mos.publicBaseUrl" -}}
{{- if .Values.publicBaseUrl -}}{{ .Values.publicBaseUrl }}
{{- else if and .Values.ingress.enabled .Values.ingress.host -}}{{ ternary "https" "http" (ne .Values.ingress.tls.secretName "") }}://{{ .Values.ingress.host }}
{{- else -}}http://{{ include "mos.fullname" . }}.{{ .Release.Namespace }}.svc:{{ .Values.service.port }}{{- end -}}
{{- end -}}

{{/*
The environment of every container of the service: the ConfigMap, the three secrets, the Temporal TLS material or
API key as files. The API's and the worker's own settings are added by their Deployments.
*/}}
{{- define "mos.env" -}}
- name: DATABASE_URL
  valueFrom: { secretKeyRef: { name: {{ include "mos.secretName" . }}, key: DATABASE_URL } }
- name: SECRET_KEYS
  valueFrom: { secretKeyRef: { name: {{ include "mos.secretName" . }}, key: SECRET_KEYS } }
- name: JOB_TOKEN_KEYS
  valueFrom: { secretKeyRef: { name: {{ include "mos.secretName" . }}, key: JOB_TOKEN_KEYS, optional: true } }
{{- if .Values.temporal.tls.enabled }}
- name: TEMPORAL_TLS
  value: "true"
- name: TEMPORAL_TLS_SERVER_CA_CERT_PATH
  value: /etc/mos/temporal-tls/ca.crt
- name: TEMPORAL_TLS_CLIENT_CERT_PATH
  value: /etc/mos/temporal-tls/tls.crt
- name: TEMPORAL_TLS_CLIENT_KEY_PATH
  value: /etc/mos/temporal-tls/tls.key
{{- with .Values.temporal.tls.serverName }}
- name: TEMPORAL_TLS_SERVER_NAME
  value: {{ . | quote }}
{{- end }}
{{- end }}
{{- if .Values.temporal.apiKey.secretName }}
- name: TEMPORAL_API_KEY_FILE
  value: /etc/mos/temporal-api-key/{{ .Values.temporal.apiKey.key }}
{{- end }}
{{- end -}}

{{- define "mos.volumeMounts" -}}
- name: tmp
  mountPath: /tmp
- name: machine-clients
  mountPath: /etc/mos/machine-clients
  readOnly: true
{{- if .Values.temporal.tls.enabled }}
- name: temporal-tls
  mountPath: /etc/mos/temporal-tls
  readOnly: true
{{- end }}
{{- if .Values.temporal.apiKey.secretName }}
- name: temporal-api-key
  mountPath: /etc/mos/temporal-api-key
  readOnly: true
{{- end }}
{{- end -}}

{{- define "mos.volumes" -}}
# The root file system is read-only; Node and the Temporal SDK write their temporary files here.
- name: tmp
  emptyDir: { sizeLimit: 256Mi }
- name: machine-clients
  configMap:
    name: {{ include "mos.fullname" . }}
    items: [{ key: machine-clients.json, path: machine-clients.json }]
{{- if .Values.temporal.tls.enabled }}
- name: temporal-tls
  secret: { secretName: {{ required "temporal.tls.secretName is required when temporal.tls.enabled" .Values.temporal.tls.secretName }} }
{{- end }}
{{- if .Values.temporal.apiKey.secretName }}
- name: temporal-api-key
  secret: { secretName: {{ .Values.temporal.apiKey.secretName }} }
{{- end }}
{{- end -}}

{{- define "mos.podSpecCommon" -}}
serviceAccountName: {{ include "mos.serviceAccountName" . }}
automountServiceAccountToken: false
securityContext:
  {{- toYaml .Values.podSecurityContext | nindent 2 }}
{{- with .Values.imagePullSecrets }}
imagePullSecrets:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- end -}}
