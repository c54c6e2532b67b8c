
using namespace System.Management.Automation
using namespace System.Management.Automation.Language

Register-ArgumentCompleter -Native -CommandName 'policyctl' -ScriptBlock {
    param($wordToComplete, $commandAst, $cursorPosition)

    $commandElements = $commandAst.CommandElements
    $command = @(
        'policyctl'
        for ($i = 1; $i -lt $commandElements.Count; $i++) {
            $element = $commandElements[$i]
            if ($element -isnot [StringConstantExpressionAst] -or
                $element.StringConstantType -ne [StringConstantType]::BareWord -or
                $element.Value.StartsWith('-') -or
                $element.Value -eq $wordToComplete) {
                break
        }
        $element.Value
    }) -join ';'

    $completions = @(switch ($command) {
        'policyctl' {
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use colour: auto (a terminal, and NO_COLOR unset), always, never')
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'Settings file [default: .policyctl.yaml in the current directory or the nearest parent]. Flags and POLICYCTL_* variables override its values')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Quiet: print findings as one line each, nothing else on stderr')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Quiet: print findings as one line each, nothing else on stderr')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Verbose: also list skipped documents and kinds policyctl does not model')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Verbose: also list skipped documents and kinds policyctl does not model')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('compute', 'compute', [CompletionResultType]::ParameterValue, 'Print the objects the operator would generate (WasmPlugin/EnvoyFilter, Limitador, AuthConfigs, ...)')
            [CompletionResult]::new('diff', 'diff', [CompletionResultType]::ParameterValue, 'Show what would change: generated objects against current ones, or between two input trees')
            [CompletionResult]::new('graph', 'graph', [CompletionResultType]::ParameterValue, 'Draw the topology (DOT, Mermaid or JSON), policies included')
            [CompletionResult]::new('status', 'status', [CompletionResultType]::ParameterValue, 'Predict every policy''s Accepted and Enforced conditions')
            [CompletionResult]::new('explain', 'explain', [CompletionResultType]::ParameterValue, 'Explain, for each path through a target, which policy rule won and why')
            [CompletionResult]::new('lint', 'lint', [CompletionResultType]::ParameterValue, 'Report every diagnostic: schema and CEL validation, references, merge outcomes')
            [CompletionResult]::new('audit', 'audit', [CompletionResultType]::ParameterValue, 'Audit coverage: paths without authentication or rate limiting, limits that never decide, shared counters; with --base, what a change takes away')
            [CompletionResult]::new('simulate', 'simulate', [CompletionResultType]::ParameterValue, 'Trace a request through gateway, route, wasm actions, AuthConfig and Limitador')
            [CompletionResult]::new('test', 'test', [CompletionResultType]::ParameterValue, 'Run test cases (requests and expected verdicts) against the simulated estate')
            [CompletionResult]::new('watch', 'watch', [CompletionResultType]::ParameterValue, 'Watch the input files: recompute on every change and print what changed (objects, status, findings); keep --out-dir in sync')
            [CompletionResult]::new('completions', 'completions', [CompletionResultType]::ParameterValue, 'Print shell completions')
            [CompletionResult]::new('version', 'version', [CompletionResultType]::ParameterValue, 'Print policyctl''s version, the operator releases it emulates and what they ship')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'policyctl;compute' {
            [CompletionResult]::new('-f', '-f', [CompletionResultType]::ParameterName, 'A manifest file, a directory (read recursively: .yaml, .yml, .json; hidden entries skipped), or - for stdin. Repeatable')
            [CompletionResult]::new('--filename', '--filename', [CompletionResultType]::ParameterName, 'A manifest file, a directory (read recursively: .yaml, .yml, .json; hidden entries skipped), or - for stdin. Repeatable')
            [CompletionResult]::new('--stdin-name', '--stdin-name', [CompletionResultType]::ParameterName, 'Name used for stdin in diagnostics')
            [CompletionResult]::new('-n', '-n', [CompletionResultType]::ParameterName, 'Namespace given to namespaced objects that have none (like kubectl apply)')
            [CompletionResult]::new('--namespace', '--namespace', [CompletionResultType]::ParameterName, 'Namespace given to namespaced objects that have none (like kubectl apply)')
            [CompletionResult]::new('--kuadrant-version', '--kuadrant-version', [CompletionResultType]::ParameterName, 'Kuadrant operator release line to emulate [default: 1.5, the newest, or kuadrantVersion in the settings file]')
            [CompletionResult]::new('--gateway-class', '--gateway-class', [CompletionResultType]::ParameterName, 'Assume a GatewayClass the input does not define has this controllerName (repeatable). Built in: istio=istio.io/gateway-controller, eg=gateway.envoyproxy.io/gatewayclass-controller, envoy-gateway=gateway.envoyproxy.io/gatewayclass-controller; also gatewayClasses in the settings file')
            [CompletionResult]::new('--validate', '--validate', [CompletionResultType]::ParameterName, 'Fields a kind''s schema does not declare, as kubectl apply''s --validate: strict refuses the object (the default), warn drops the field with a warning, ignore drops it silently [also validate in the settings file]')
            [CompletionResult]::new('--max-input-bytes', '--max-input-bytes', [CompletionResultType]::ParameterName, 'The most bytes the run reads, files and streams together (watch: every cycle); the input that would go beyond it and those after it are left out with PCTL1019, exit 2')
            [CompletionResult]::new('--max-documents', '--max-documents', [CompletionResultType]::ParameterName, 'The most documents the run reads (YAML documents, objects of a JSON stream, items of a List; watch: every cycle); those from the first beyond it are left out with PCTL1019, exit 2')
            [CompletionResult]::new('--max-paths', '--max-paths', [CompletionResultType]::ParameterName, 'The most paths (class → gateway → listener → route → rule) the run computes; routes beyond it are left out with PCTL1019, exit 2')
            [CompletionResult]::new('--max-action-sets', '--max-action-sets', [CompletionResultType]::ParameterName, 'The most wasm action sets (a path''s hostnames × its rule''s matches) the run computes; routes beyond it are left out with PCTL1019, exit 2')
            [CompletionResult]::new('--diagnostics-format', '--diagnostics-format', [CompletionResultType]::ParameterName, 'Format of the diagnostics: text, json, github, sarif or junit [default: text]. The exit code does not depend on it')
            [CompletionResult]::new('--diagnostics-file', '--diagnostics-file', [CompletionResultType]::ParameterName, 'Write the diagnostics to FILE instead of stderr')
            [CompletionResult]::new('-o', '-o', [CompletionResultType]::ParameterName, 'Output format: yaml (multi-document, kubectl style) or json (a v1 List)')
            [CompletionResult]::new('--output', '--output', [CompletionResultType]::ParameterName, 'Output format: yaml (multi-document, kubectl style) or json (a v1 List)')
            [CompletionResult]::new('--only', '--only', [CompletionResultType]::ParameterName, 'Only these object families (comma-separated): wasm, envoyfilter, limitador, authconfig, envoygateway, certificate, dnsrecord, extension')
            [CompletionResult]::new('--gateway', '--gateway', [CompletionResultType]::ParameterName, 'Only paths through this gateway')
            [CompletionResult]::new('--wasm-sha256', '--wasm-sha256', [CompletionResultType]::ParameterName, 'sha256 of the wasm module the 1.5 operator serves (written into the wasm EnvoyFilter) [default: empty; the operator computes it from the module at run time]')
            [CompletionResult]::new('--wasm-image', '--wasm-image', [CompletionResultType]::ParameterName, 'wasm-shim image (default: the image of the emulated operator release)')
            [CompletionResult]::new('--kuadrant-namespace', '--kuadrant-namespace', [CompletionResultType]::ParameterName, 'Namespace used when the input has no Kuadrant object [default: kuadrant-system]')
            [CompletionResult]::new('--istio-controller-names', '--istio-controller-names', [CompletionResultType]::ParameterName, 'GatewayClass controller names handled as Istio (comma-separated; the default is appended)')
            [CompletionResult]::new('--envoy-gateway-controller-names', '--envoy-gateway-controller-names', [CompletionResultType]::ParameterName, 'GatewayClass controller names handled as Envoy Gateway (comma-separated; the default is appended)')
            [CompletionResult]::new('--out-dir', '--out-dir', [CompletionResultType]::ParameterName, 'Write one file per object into this folder (atomically), prune files generated earlier that are no longer desired, and report created / updated / unchanged / pruned. Files without policyctl''s marker line are never touched')
            [CompletionResult]::new('--lock-timeout', '--lock-timeout', [CompletionResultType]::ParameterName, 'With --out-dir: seconds to wait for another policyctl run writing the same folder to finish (0: do not wait) [default: 300]')
            [CompletionResult]::new('--fail-on', '--fail-on', [CompletionResultType]::ParameterName, 'The lowest severity that makes the exit code 1 [default: error, or failOn in the settings file]')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use colour: auto (a terminal, and NO_COLOR unset), always, never')
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'Settings file [default: .policyctl.yaml in the current directory or the nearest parent]. Flags and POLICYCTL_* variables override its values')
            [CompletionResult]::new('--check', '--check', [CompletionResultType]::ParameterName, 'With --out-dir: write nothing; exit 1 and list what is stale')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Quiet: print findings as one line each, nothing else on stderr')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Quiet: print findings as one line each, nothing else on stderr')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Verbose: also list skipped documents and kinds policyctl does not model')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Verbose: also list skipped documents and kinds policyctl does not model')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'policyctl;diff' {
            [CompletionResult]::new('-f', '-f', [CompletionResultType]::ParameterName, 'A manifest file, a directory (read recursively: .yaml, .yml, .json; hidden entries skipped), or - for stdin. Repeatable')
            [CompletionResult]::new('--filename', '--filename', [CompletionResultType]::ParameterName, 'A manifest file, a directory (read recursively: .yaml, .yml, .json; hidden entries skipped), or - for stdin. Repeatable')
            [CompletionResult]::new('--stdin-name', '--stdin-name', [CompletionResultType]::ParameterName, 'Name used for stdin in diagnostics')
            [CompletionResult]::new('-n', '-n', [CompletionResultType]::ParameterName, 'Namespace given to namespaced objects that have none (like kubectl apply)')
            [CompletionResult]::new('--namespace', '--namespace', [CompletionResultType]::ParameterName, 'Namespace given to namespaced objects that have none (like kubectl apply)')
            [CompletionResult]::new('--kuadrant-version', '--kuadrant-version', [CompletionResultType]::ParameterName, 'Kuadrant operator release line to emulate [default: 1.5, the newest, or kuadrantVersion in the settings file]')
            [CompletionResult]::new('--gateway-class', '--gateway-class', [CompletionResultType]::ParameterName, 'Assume a GatewayClass the input does not define has this controllerName (repeatable). Built in: istio=istio.io/gateway-controller, eg=gateway.envoyproxy.io/gatewayclass-controller, envoy-gateway=gateway.envoyproxy.io/gatewayclass-controller; also gatewayClasses in the settings file')
            [CompletionResult]::new('--validate', '--validate', [CompletionResultType]::ParameterName, 'Fields a kind''s schema does not declare, as kubectl apply''s --validate: strict refuses the object (the default), warn drops the field with a warning, ignore drops it silently [also validate in the settings file]')
            [CompletionResult]::new('--max-input-bytes', '--max-input-bytes', [CompletionResultType]::ParameterName, 'The most bytes the run reads, files and streams together (watch: every cycle); the input that would go beyond it and those after it are left out with PCTL1019, exit 2')
            [CompletionResult]::new('--max-documents', '--max-documents', [CompletionResultType]::ParameterName, 'The most documents the run reads (YAML documents, objects of a JSON stream, items of a List; watch: every cycle); those from the first beyond it are left out with PCTL1019, exit 2')
            [CompletionResult]::new('--max-paths', '--max-paths', [CompletionResultType]::ParameterName, 'The most paths (class → gateway → listener → route → rule) the run computes; routes beyond it are left out with PCTL1019, exit 2')
            [CompletionResult]::new('--max-action-sets', '--max-action-sets', [CompletionResultType]::ParameterName, 'The most wasm action sets (a path''s hostnames × its rule''s matches) the run computes; routes beyond it are left out with PCTL1019, exit 2')
            [CompletionResult]::new('--diagnostics-format', '--diagnostics-format', [CompletionResultType]::ParameterName, 'Format of the diagnostics: text, json, github, sarif or junit [default: text]. The exit code does not depend on it')
            [CompletionResult]::new('--diagnostics-file', '--diagnostics-file', [CompletionResultType]::ParameterName, 'Write the diagnostics to FILE instead of stderr')
            [CompletionResult]::new('--against', '--against', [CompletionResultType]::ParameterName, 'Current objects: a file, a folder (e.g. `compute --out-dir` output), or - for stdin (e.g. a `kubectl get … -o yaml` dump). Only Kuadrant-managed objects, the Limitador CR and the operator''s Certificates and DNSRecords are compared')
            [CompletionResult]::new('--base', '--base', [CompletionResultType]::ParameterName, 'Another input tree (e.g. the pull request''s base): compute both and compare the outputs')
            [CompletionResult]::new('-o', '-o', [CompletionResultType]::ParameterName, 'Output: unified (default), stat, json or markdown (a pull-request comment)')
            [CompletionResult]::new('--output', '--output', [CompletionResultType]::ParameterName, 'Output: unified (default), stat, json or markdown (a pull-request comment)')
            [CompletionResult]::new('--context', '--context', [CompletionResultType]::ParameterName, 'Lines of context in unified diffs')
            [CompletionResult]::new('--only', '--only', [CompletionResultType]::ParameterName, 'Only these object families (comma-separated): wasm, envoyfilter, limitador, authconfig, envoygateway, certificate, dnsrecord, extension')
            [CompletionResult]::new('--gateway', '--gateway', [CompletionResultType]::ParameterName, 'Only paths through this gateway')
            [CompletionResult]::new('--wasm-sha256', '--wasm-sha256', [CompletionResultType]::ParameterName, 'sha256 of the wasm module the 1.5 operator serves (written into the wasm EnvoyFilter) [default: empty; the operator computes it from the module at run time]')
            [CompletionResult]::new('--wasm-image', '--wasm-image', [CompletionResultType]::ParameterName, 'wasm-shim image (default: the image of the emulated operator release)')
            [CompletionResult]::new('--kuadrant-namespace', '--kuadrant-namespace', [CompletionResultType]::ParameterName, 'Namespace used when the input has no Kuadrant object [default: kuadrant-system]')
            [CompletionResult]::new('--istio-controller-names', '--istio-controller-names', [CompletionResultType]::ParameterName, 'GatewayClass controller names handled as Istio (comma-separated; the default is appended)')
            [CompletionResult]::new('--envoy-gateway-controller-names', '--envoy-gateway-controller-names', [CompletionResultType]::ParameterName, 'GatewayClass controller names handled as Envoy Gateway (comma-separated; the default is appended)')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use colour: auto (a terminal, and NO_COLOR unset), always, never')
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'Settings file [default: .policyctl.yaml in the current directory or the nearest parent]. Flags and POLICYCTL_* variables override its values')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Quiet: print findings as one line each, nothing else on stderr')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Quiet: print findings as one line each, nothing else on stderr')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Verbose: also list skipped documents and kinds policyctl does not model')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Verbose: also list skipped documents and kinds policyctl does not model')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'policyctl;graph' {
            [CompletionResult]::new('-f', '-f', [CompletionResultType]::ParameterName, 'A manifest file, a directory (read recursively: .yaml, .yml, .json; hidden entries skipped), or - for stdin. Repeatable')
            [CompletionResult]::new('--filename', '--filename', [CompletionResultType]::ParameterName, 'A manifest file, a directory (read recursively: .yaml, .yml, .json; hidden entries skipped), or - for stdin. Repeatable')
            [CompletionResult]::new('--stdin-name', '--stdin-name', [CompletionResultType]::ParameterName, 'Name used for stdin in diagnostics')
            [CompletionResult]::new('-n', '-n', [CompletionResultType]::ParameterName, 'Namespace given to namespaced objects that have none (like kubectl apply)')
            [CompletionResult]::new('--namespace', '--namespace', [CompletionResultType]::ParameterName, 'Namespace given to namespaced objects that have none (like kubectl apply)')
            [CompletionResult]::new('--kuadrant-version', '--kuadrant-version', [CompletionResultType]::ParameterName, 'Kuadrant operator release line to emulate [default: 1.5, the newest, or kuadrantVersion in the settings file]')
            [CompletionResult]::new('--gateway-class', '--gateway-class', [CompletionResultType]::ParameterName, 'Assume a GatewayClass the input does not define has this controllerName (repeatable). Built in: istio=istio.io/gateway-controller, eg=gateway.envoyproxy.io/gatewayclass-controller, envoy-gateway=gateway.envoyproxy.io/gatewayclass-controller; also gatewayClasses in the settings file')
            [CompletionResult]::new('--validate', '--validate', [CompletionResultType]::ParameterName, 'Fields a kind''s schema does not declare, as kubectl apply''s --validate: strict refuses the object (the default), warn drops the field with a warning, ignore drops it silently [also validate in the settings file]')
            [CompletionResult]::new('--max-input-bytes', '--max-input-bytes', [CompletionResultType]::ParameterName, 'The most bytes the run reads, files and streams together (watch: every cycle); the input that would go beyond it and those after it are left out with PCTL1019, exit 2')
            [CompletionResult]::new('--max-documents', '--max-documents', [CompletionResultType]::ParameterName, 'The most documents the run reads (YAML documents, objects of a JSON stream, items of a List; watch: every cycle); those from the first beyond it are left out with PCTL1019, exit 2')
            [CompletionResult]::new('--max-paths', '--max-paths', [CompletionResultType]::ParameterName, 'The most paths (class → gateway → listener → route → rule) the run computes; routes beyond it are left out with PCTL1019, exit 2')
            [CompletionResult]::new('--max-action-sets', '--max-action-sets', [CompletionResultType]::ParameterName, 'The most wasm action sets (a path''s hostnames × its rule''s matches) the run computes; routes beyond it are left out with PCTL1019, exit 2')
            [CompletionResult]::new('--diagnostics-format', '--diagnostics-format', [CompletionResultType]::ParameterName, 'Format of the diagnostics: text, json, github, sarif or junit [default: text]. The exit code does not depend on it')
            [CompletionResult]::new('--diagnostics-file', '--diagnostics-file', [CompletionResultType]::ParameterName, 'Write the diagnostics to FILE instead of stderr')
            [CompletionResult]::new('-o', '-o', [CompletionResultType]::ParameterName, 'Output format')
            [CompletionResult]::new('--output', '--output', [CompletionResultType]::ParameterName, 'Output format')
            [CompletionResult]::new('--compat', '--compat', [CompletionResultType]::ParameterName, 'Print DOT exactly as another tool does (only with -o dot)')
            [CompletionResult]::new('--for', '--for', [CompletionResultType]::ParameterName, 'Draw only this object, its ancestors, descendants and the policies attached to any of them: KIND/NAMESPACE/NAME (gatewayclass/NAME for classes; listener/NS/GATEWAY#LISTENER for a listener)')
            [CompletionResult]::new('--fail-on', '--fail-on', [CompletionResultType]::ParameterName, 'The lowest severity that makes the exit code 1 [default: error, or failOn in the settings file]')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use colour: auto (a terminal, and NO_COLOR unset), always, never')
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'Settings file [default: .policyctl.yaml in the current directory or the nearest parent]. Flags and POLICYCTL_* variables override its values')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Quiet: print findings as one line each, nothing else on stderr')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Quiet: print findings as one line each, nothing else on stderr')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Verbose: also list skipped documents and kinds policyctl does not model')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Verbose: also list skipped documents and kinds policyctl does not model')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'policyctl;status' {
            [CompletionResult]::new('-f', '-f', [CompletionResultType]::ParameterName, 'A manifest file, a directory (read recursively: .yaml, .yml, .json; hidden entries skipped), or - for stdin. Repeatable')
            [CompletionResult]::new('--filename', '--filename', [CompletionResultType]::ParameterName, 'A manifest file, a directory (read recursively: .yaml, .yml, .json; hidden entries skipped), or - for stdin. Repeatable')
            [CompletionResult]::new('--stdin-name', '--stdin-name', [CompletionResultType]::ParameterName, 'Name used for stdin in diagnostics')
            [CompletionResult]::new('-n', '-n', [CompletionResultType]::ParameterName, 'Namespace given to namespaced objects that have none (like kubectl apply)')
            [CompletionResult]::new('--namespace', '--namespace', [CompletionResultType]::ParameterName, 'Namespace given to namespaced objects that have none (like kubectl apply)')
            [CompletionResult]::new('--kuadrant-version', '--kuadrant-version', [CompletionResultType]::ParameterName, 'Kuadrant operator release line to emulate [default: 1.5, the newest, or kuadrantVersion in the settings file]')
            [CompletionResult]::new('--gateway-class', '--gateway-class', [CompletionResultType]::ParameterName, 'Assume a GatewayClass the input does not define has this controllerName (repeatable). Built in: istio=istio.io/gateway-controller, eg=gateway.envoyproxy.io/gatewayclass-controller, envoy-gateway=gateway.envoyproxy.io/gatewayclass-controller; also gatewayClasses in the settings file')
            [CompletionResult]::new('--validate', '--validate', [CompletionResultType]::ParameterName, 'Fields a kind''s schema does not declare, as kubectl apply''s --validate: strict refuses the object (the default), warn drops the field with a warning, ignore drops it silently [also validate in the settings file]')
            [CompletionResult]::new('--max-input-bytes', '--max-input-bytes', [CompletionResultType]::ParameterName, 'The most bytes the run reads, files and streams together (watch: every cycle); the input that would go beyond it and those after it are left out with PCTL1019, exit 2')
            [CompletionResult]::new('--max-documents', '--max-documents', [CompletionResultType]::ParameterName, 'The most documents the run reads (YAML documents, objects of a JSON stream, items of a List; watch: every cycle); those from the first beyond it are left out with PCTL1019, exit 2')
            [CompletionResult]::new('--max-paths', '--max-paths', [CompletionResultType]::ParameterName, 'The most paths (class → gateway → listener → route → rule) the run computes; routes beyond it are left out with PCTL1019, exit 2')
            [CompletionResult]::new('--max-action-sets', '--max-action-sets', [CompletionResultType]::ParameterName, 'The most wasm action sets (a path''s hostnames × its rule''s matches) the run computes; routes beyond it are left out with PCTL1019, exit 2')
            [CompletionResult]::new('--diagnostics-format', '--diagnostics-format', [CompletionResultType]::ParameterName, 'Format of the diagnostics: text, json, github, sarif or junit [default: text]. The exit code does not depend on it')
            [CompletionResult]::new('--diagnostics-file', '--diagnostics-file', [CompletionResultType]::ParameterName, 'Write the diagnostics to FILE instead of stderr')
            [CompletionResult]::new('-o', '-o', [CompletionResultType]::ParameterName, 'Output: table, wide (adds reasons, overriding policies, paths), yaml (the policies as written with predicted status.conditions, multi-document) or json (a kubectl List)')
            [CompletionResult]::new('--output', '--output', [CompletionResultType]::ParameterName, 'Output: table, wide (adds reasons, overriding policies, paths), yaml (the policies as written with predicted status.conditions, multi-document) or json (a kubectl List)')
            [CompletionResult]::new('--fail-on', '--fail-on', [CompletionResultType]::ParameterName, 'The lowest severity that makes the exit code 1 [default: error, or failOn in the settings file]')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use colour: auto (a terminal, and NO_COLOR unset), always, never')
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'Settings file [default: .policyctl.yaml in the current directory or the nearest parent]. Flags and POLICYCTL_* variables override its values')
            [CompletionResult]::new('--respect-status', '--respect-status', [CompletionResultType]::ParameterName, 'Read listener and route readiness from the objects'' status instead of assuming it')
            [CompletionResult]::new('--routes', '--routes', [CompletionResultType]::ParameterName, 'Show the routes instead of the policies: the kuadrant.io/<Kind>Affected conditions the operator writes on each HTTPRoute/GRPCRoute parent Gateway (table: one row per condition; yaml/json: the routes as written with the predicted status.parents entries)')
            [CompletionResult]::new('--gateways', '--gateways', [CompletionResultType]::ParameterName, 'Show the Gateways instead of the policies: the kuadrant.io/<Kind>Affected conditions the operator writes on each Gateway and on each of its listeners (table: one row per condition, LISTENER `-` for the Gateway''s own; yaml/json: the Gateways as written with the predicted status.conditions and status.listeners)')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Quiet: print findings as one line each, nothing else on stderr')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Quiet: print findings as one line each, nothing else on stderr')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Verbose: also list skipped documents and kinds policyctl does not model')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Verbose: also list skipped documents and kinds policyctl does not model')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'policyctl;explain' {
            [CompletionResult]::new('-f', '-f', [CompletionResultType]::ParameterName, 'A manifest file, a directory (read recursively: .yaml, .yml, .json; hidden entries skipped), or - for stdin. Repeatable')
            [CompletionResult]::new('--filename', '--filename', [CompletionResultType]::ParameterName, 'A manifest file, a directory (read recursively: .yaml, .yml, .json; hidden entries skipped), or - for stdin. Repeatable')
            [CompletionResult]::new('--stdin-name', '--stdin-name', [CompletionResultType]::ParameterName, 'Name used for stdin in diagnostics')
            [CompletionResult]::new('-n', '-n', [CompletionResultType]::ParameterName, 'Namespace given to namespaced objects that have none (like kubectl apply)')
            [CompletionResult]::new('--namespace', '--namespace', [CompletionResultType]::ParameterName, 'Namespace given to namespaced objects that have none (like kubectl apply)')
            [CompletionResult]::new('--kuadrant-version', '--kuadrant-version', [CompletionResultType]::ParameterName, 'Kuadrant operator release line to emulate [default: 1.5, the newest, or kuadrantVersion in the settings file]')
            [CompletionResult]::new('--gateway-class', '--gateway-class', [CompletionResultType]::ParameterName, 'Assume a GatewayClass the input does not define has this controllerName (repeatable). Built in: istio=istio.io/gateway-controller, eg=gateway.envoyproxy.io/gatewayclass-controller, envoy-gateway=gateway.envoyproxy.io/gatewayclass-controller; also gatewayClasses in the settings file')
            [CompletionResult]::new('--validate', '--validate', [CompletionResultType]::ParameterName, 'Fields a kind''s schema does not declare, as kubectl apply''s --validate: strict refuses the object (the default), warn drops the field with a warning, ignore drops it silently [also validate in the settings file]')
            [CompletionResult]::new('--max-input-bytes', '--max-input-bytes', [CompletionResultType]::ParameterName, 'The most bytes the run reads, files and streams together (watch: every cycle); the input that would go beyond it and those after it are left out with PCTL1019, exit 2')
            [CompletionResult]::new('--max-documents', '--max-documents', [CompletionResultType]::ParameterName, 'The most documents the run reads (YAML documents, objects of a JSON stream, items of a List; watch: every cycle); those from the first beyond it are left out with PCTL1019, exit 2')
            [CompletionResult]::new('--max-paths', '--max-paths', [CompletionResultType]::ParameterName, 'The most paths (class → gateway → listener → route → rule) the run computes; routes beyond it are left out with PCTL1019, exit 2')
            [CompletionResult]::new('--max-action-sets', '--max-action-sets', [CompletionResultType]::ParameterName, 'The most wasm action sets (a path''s hostnames × its rule''s matches) the run computes; routes beyond it are left out with PCTL1019, exit 2')
            [CompletionResult]::new('--diagnostics-format', '--diagnostics-format', [CompletionResultType]::ParameterName, 'Format of the diagnostics: text, json, github, sarif or junit [default: text]. The exit code does not depend on it')
            [CompletionResult]::new('--diagnostics-file', '--diagnostics-file', [CompletionResultType]::ParameterName, 'Write the diagnostics to FILE instead of stderr')
            [CompletionResult]::new('--kind', '--kind', [CompletionResultType]::ParameterName, 'Only this policy kind (RateLimitPolicy, AuthPolicy, TokenRateLimitPolicy)')
            [CompletionResult]::new('-o', '-o', [CompletionResultType]::ParameterName, 'Output: text (a tree), yaml or json')
            [CompletionResult]::new('--output', '--output', [CompletionResultType]::ParameterName, 'Output: text (a tree), yaml or json')
            [CompletionResult]::new('--fail-on', '--fail-on', [CompletionResultType]::ParameterName, 'The lowest severity that makes the exit code 1 [default: error, or failOn in the settings file]')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use colour: auto (a terminal, and NO_COLOR unset), always, never')
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'Settings file [default: .policyctl.yaml in the current directory or the nearest parent]. Flags and POLICYCTL_* variables override its values')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Quiet: print findings as one line each, nothing else on stderr')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Quiet: print findings as one line each, nothing else on stderr')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Verbose: also list skipped documents and kinds policyctl does not model')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Verbose: also list skipped documents and kinds policyctl does not model')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'policyctl;lint' {
            [CompletionResult]::new('-f', '-f', [CompletionResultType]::ParameterName, 'A manifest file, a directory (read recursively: .yaml, .yml, .json; hidden entries skipped), or - for stdin. Repeatable')
            [CompletionResult]::new('--filename', '--filename', [CompletionResultType]::ParameterName, 'A manifest file, a directory (read recursively: .yaml, .yml, .json; hidden entries skipped), or - for stdin. Repeatable')
            [CompletionResult]::new('--stdin-name', '--stdin-name', [CompletionResultType]::ParameterName, 'Name used for stdin in diagnostics')
            [CompletionResult]::new('-n', '-n', [CompletionResultType]::ParameterName, 'Namespace given to namespaced objects that have none (like kubectl apply)')
            [CompletionResult]::new('--namespace', '--namespace', [CompletionResultType]::ParameterName, 'Namespace given to namespaced objects that have none (like kubectl apply)')
            [CompletionResult]::new('--kuadrant-version', '--kuadrant-version', [CompletionResultType]::ParameterName, 'Kuadrant operator release line to emulate [default: 1.5, the newest, or kuadrantVersion in the settings file]')
            [CompletionResult]::new('--gateway-class', '--gateway-class', [CompletionResultType]::ParameterName, 'Assume a GatewayClass the input does not define has this controllerName (repeatable). Built in: istio=istio.io/gateway-controller, eg=gateway.envoyproxy.io/gatewayclass-controller, envoy-gateway=gateway.envoyproxy.io/gatewayclass-controller; also gatewayClasses in the settings file')
            [CompletionResult]::new('--validate', '--validate', [CompletionResultType]::ParameterName, 'Fields a kind''s schema does not declare, as kubectl apply''s --validate: strict refuses the object (the default), warn drops the field with a warning, ignore drops it silently [also validate in the settings file]')
            [CompletionResult]::new('--max-input-bytes', '--max-input-bytes', [CompletionResultType]::ParameterName, 'The most bytes the run reads, files and streams together (watch: every cycle); the input that would go beyond it and those after it are left out with PCTL1019, exit 2')
            [CompletionResult]::new('--max-documents', '--max-documents', [CompletionResultType]::ParameterName, 'The most documents the run reads (YAML documents, objects of a JSON stream, items of a List; watch: every cycle); those from the first beyond it are left out with PCTL1019, exit 2')
            [CompletionResult]::new('--max-paths', '--max-paths', [CompletionResultType]::ParameterName, 'The most paths (class → gateway → listener → route → rule) the run computes; routes beyond it are left out with PCTL1019, exit 2')
            [CompletionResult]::new('--max-action-sets', '--max-action-sets', [CompletionResultType]::ParameterName, 'The most wasm action sets (a path''s hostnames × its rule''s matches) the run computes; routes beyond it are left out with PCTL1019, exit 2')
            [CompletionResult]::new('-o', '-o', [CompletionResultType]::ParameterName, 'Output format: text, json, github (workflow annotations), sarif (SARIF 2.1.0) or junit (JUnit XML)')
            [CompletionResult]::new('--output', '--output', [CompletionResultType]::ParameterName, 'Output format: text, json, github (workflow annotations), sarif (SARIF 2.1.0) or junit (JUnit XML)')
            [CompletionResult]::new('--fail-on', '--fail-on', [CompletionResultType]::ParameterName, 'The lowest severity that makes the exit code 1 [default: error, or failOn in the settings file]')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use colour: auto (a terminal, and NO_COLOR unset), always, never')
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'Settings file [default: .policyctl.yaml in the current directory or the nearest parent]. Flags and POLICYCTL_* variables override its values')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Quiet: print findings as one line each, nothing else on stderr')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Quiet: print findings as one line each, nothing else on stderr')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Verbose: also list skipped documents and kinds policyctl does not model')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Verbose: also list skipped documents and kinds policyctl does not model')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'policyctl;audit' {
            [CompletionResult]::new('-f', '-f', [CompletionResultType]::ParameterName, 'A manifest file, a directory (read recursively: .yaml, .yml, .json; hidden entries skipped), or - for stdin. Repeatable')
            [CompletionResult]::new('--filename', '--filename', [CompletionResultType]::ParameterName, 'A manifest file, a directory (read recursively: .yaml, .yml, .json; hidden entries skipped), or - for stdin. Repeatable')
            [CompletionResult]::new('--stdin-name', '--stdin-name', [CompletionResultType]::ParameterName, 'Name used for stdin in diagnostics')
            [CompletionResult]::new('-n', '-n', [CompletionResultType]::ParameterName, 'Namespace given to namespaced objects that have none (like kubectl apply)')
            [CompletionResult]::new('--namespace', '--namespace', [CompletionResultType]::ParameterName, 'Namespace given to namespaced objects that have none (like kubectl apply)')
            [CompletionResult]::new('--kuadrant-version', '--kuadrant-version', [CompletionResultType]::ParameterName, 'Kuadrant operator release line to emulate [default: 1.5, the newest, or kuadrantVersion in the settings file]')
            [CompletionResult]::new('--gateway-class', '--gateway-class', [CompletionResultType]::ParameterName, 'Assume a GatewayClass the input does not define has this controllerName (repeatable). Built in: istio=istio.io/gateway-controller, eg=gateway.envoyproxy.io/gatewayclass-controller, envoy-gateway=gateway.envoyproxy.io/gatewayclass-controller; also gatewayClasses in the settings file')
            [CompletionResult]::new('--validate', '--validate', [CompletionResultType]::ParameterName, 'Fields a kind''s schema does not declare, as kubectl apply''s --validate: strict refuses the object (the default), warn drops the field with a warning, ignore drops it silently [also validate in the settings file]')
            [CompletionResult]::new('--max-input-bytes', '--max-input-bytes', [CompletionResultType]::ParameterName, 'The most bytes the run reads, files and streams together (watch: every cycle); the input that would go beyond it and those after it are left out with PCTL1019, exit 2')
            [CompletionResult]::new('--max-documents', '--max-documents', [CompletionResultType]::ParameterName, 'The most documents the run reads (YAML documents, objects of a JSON stream, items of a List; watch: every cycle); those from the first beyond it are left out with PCTL1019, exit 2')
            [CompletionResult]::new('--max-paths', '--max-paths', [CompletionResultType]::ParameterName, 'The most paths (class → gateway → listener → route → rule) the run computes; routes beyond it are left out with PCTL1019, exit 2')
            [CompletionResult]::new('--max-action-sets', '--max-action-sets', [CompletionResultType]::ParameterName, 'The most wasm action sets (a path''s hostnames × its rule''s matches) the run computes; routes beyond it are left out with PCTL1019, exit 2')
            [CompletionResult]::new('--diagnostics-format', '--diagnostics-format', [CompletionResultType]::ParameterName, 'Format of the diagnostics: text, json, github, sarif or junit [default: text]. The exit code does not depend on it')
            [CompletionResult]::new('--diagnostics-file', '--diagnostics-file', [CompletionResultType]::ParameterName, 'Write the diagnostics to FILE instead of stderr')
            [CompletionResult]::new('-o', '-o', [CompletionResultType]::ParameterName, 'Output: table, json, markdown (a pull-request comment) or sarif (the findings)')
            [CompletionResult]::new('--output', '--output', [CompletionResultType]::ParameterName, 'Output: table, json, markdown (a pull-request comment) or sarif (the findings)')
            [CompletionResult]::new('--require', '--require', [CompletionResultType]::ParameterName, 'Make a path without this protection a finding, and the exit code 1 (comma-separated: auth, ratelimit)')
            [CompletionResult]::new('--base', '--base', [CompletionResultType]::ParameterName, 'Another input tree (e.g. the pull request''s base): audit both and say what the change does to coverage and findings')
            [CompletionResult]::new('--fail-on', '--fail-on', [CompletionResultType]::ParameterName, 'The lowest severity that makes the exit code 1 [default: error, or failOn in the settings file]. Findings of --require always do')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use colour: auto (a terminal, and NO_COLOR unset), always, never')
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'Settings file [default: .policyctl.yaml in the current directory or the nearest parent]. Flags and POLICYCTL_* variables override its values')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Quiet: print findings as one line each, nothing else on stderr')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Quiet: print findings as one line each, nothing else on stderr')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Verbose: also list skipped documents and kinds policyctl does not model')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Verbose: also list skipped documents and kinds policyctl does not model')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'policyctl;simulate' {
            [CompletionResult]::new('-f', '-f', [CompletionResultType]::ParameterName, 'A manifest file, a directory (read recursively: .yaml, .yml, .json; hidden entries skipped), or - for stdin. Repeatable')
            [CompletionResult]::new('--filename', '--filename', [CompletionResultType]::ParameterName, 'A manifest file, a directory (read recursively: .yaml, .yml, .json; hidden entries skipped), or - for stdin. Repeatable')
            [CompletionResult]::new('--stdin-name', '--stdin-name', [CompletionResultType]::ParameterName, 'Name used for stdin in diagnostics')
            [CompletionResult]::new('-n', '-n', [CompletionResultType]::ParameterName, 'Namespace given to namespaced objects that have none (like kubectl apply)')
            [CompletionResult]::new('--namespace', '--namespace', [CompletionResultType]::ParameterName, 'Namespace given to namespaced objects that have none (like kubectl apply)')
            [CompletionResult]::new('--kuadrant-version', '--kuadrant-version', [CompletionResultType]::ParameterName, 'Kuadrant operator release line to emulate [default: 1.5, the newest, or kuadrantVersion in the settings file]')
            [CompletionResult]::new('--gateway-class', '--gateway-class', [CompletionResultType]::ParameterName, 'Assume a GatewayClass the input does not define has this controllerName (repeatable). Built in: istio=istio.io/gateway-controller, eg=gateway.envoyproxy.io/gatewayclass-controller, envoy-gateway=gateway.envoyproxy.io/gatewayclass-controller; also gatewayClasses in the settings file')
            [CompletionResult]::new('--validate', '--validate', [CompletionResultType]::ParameterName, 'Fields a kind''s schema does not declare, as kubectl apply''s --validate: strict refuses the object (the default), warn drops the field with a warning, ignore drops it silently [also validate in the settings file]')
            [CompletionResult]::new('--max-input-bytes', '--max-input-bytes', [CompletionResultType]::ParameterName, 'The most bytes the run reads, files and streams together (watch: every cycle); the input that would go beyond it and those after it are left out with PCTL1019, exit 2')
            [CompletionResult]::new('--max-documents', '--max-documents', [CompletionResultType]::ParameterName, 'The most documents the run reads (YAML documents, objects of a JSON stream, items of a List; watch: every cycle); those from the first beyond it are left out with PCTL1019, exit 2')
            [CompletionResult]::new('--max-paths', '--max-paths', [CompletionResultType]::ParameterName, 'The most paths (class → gateway → listener → route → rule) the run computes; routes beyond it are left out with PCTL1019, exit 2')
            [CompletionResult]::new('--max-action-sets', '--max-action-sets', [CompletionResultType]::ParameterName, 'The most wasm action sets (a path''s hostnames × its rule''s matches) the run computes; routes beyond it are left out with PCTL1019, exit 2')
            [CompletionResult]::new('--requests', '--requests', [CompletionResultType]::ParameterName, 'Play a timed list of requests from FILE (- for stdin): a YAML list or JSON Lines, each entry a url and optionally at/after, method, headers, identity, source, tokens, count, interval. -X, -H, --identity, --source and --tokens apply to every entry that does not say otherwise')
            [CompletionResult]::new('-X', '-X ', [CompletionResultType]::ParameterName, 'The request method')
            [CompletionResult]::new('--request', '--request', [CompletionResultType]::ParameterName, 'The request method')
            [CompletionResult]::new('-H', '-H ', [CompletionResultType]::ParameterName, 'A request header, ''Name: value''. Repeatable')
            [CompletionResult]::new('--header', '--header', [CompletionResultType]::ParameterName, 'A request header, ''Name: value''. Repeatable')
            [CompletionResult]::new('--identity', '--identity', [CompletionResultType]::ParameterName, 'What Authorino would put under auth.identity: JSON, or @FILE holding it')
            [CompletionResult]::new('--source', '--source', [CompletionResultType]::ParameterName, 'The client''s address (source.address, source.port): ADDRESS[:PORT]')
            [CompletionResult]::new('--tokens', '--tokens', [CompletionResultType]::ParameterName, 'Token usage reported after each response, for TokenRateLimitPolicies: the response''s usage.total_tokens (without it, or --response-body, token counters become undecided)')
            [CompletionResult]::new('--response-body', '--response-body', [CompletionResultType]::ParameterName, 'The upstream response''s JSON body, which responseBodyJSON reads (token usage): JSON, or @FILE holding it')
            [CompletionResult]::new('--assume', '--assume', [CompletionResultType]::ParameterName, 'State the outcome of a rule that needs a live server: SECTION/NAME=VALUE, SECTION one of authentication, authorization, metadata; VALUE true, false or JSON (an identity, a metadata object). Repeatable')
            [CompletionResult]::new('--jwks', '--jwks', [CompletionResultType]::ParameterName, 'A JWKS document (JSON, {"keys": [...]}) JWT signatures are verified against, for the issuerUrl or jwksUrl URL names, or for every JWT rule without one of its own. Without it a JWT''s claims are decoded and its signature is not verified. Repeatable')
            [CompletionResult]::new('--connect-to', '--connect-to', [CompletionResultType]::ParameterName, 'As curl: send a request for HOST1:PORT1 to HOST2:PORT2 (empty parts: any host or port, or unchanged), e.g. localhost:9081::80 for a port-forward to the gateway''s port 80. Repeatable')
            [CompletionResult]::new('--count', '--count', [CompletionResultType]::ParameterName, 'Send the request N times (at most --max-requests)')
            [CompletionResult]::new('--interval', '--interval', [CompletionResultType]::ParameterName, 'Time between two requests of --count (e.g. 500ms, 1s) [default: 0, all at one instant]')
            [CompletionResult]::new('--gateway', '--gateway', [CompletionResultType]::ParameterName, 'The gateway (NAMESPACE/NAME) to send to when several listen on the URL''s port')
            [CompletionResult]::new('-o', '-o', [CompletionResultType]::ParameterName, 'Output: text (a tree for one request, a line per request for several) or json')
            [CompletionResult]::new('--output', '--output', [CompletionResultType]::ParameterName, 'Output: text (a tree for one request, a line per request for several) or json')
            [CompletionResult]::new('--cel-cost-limit', '--cel-cost-limit', [CompletionResultType]::ParameterName, 'The most one evaluation of a CEL expression or a Rego policy may cost (cel-go''s cost units; regorus''s work units for Rego) before the run stops with PCTL5013')
            [CompletionResult]::new('--request-cost-limit', '--request-cost-limit', [CompletionResultType]::ParameterName, 'The most every evaluation of one simulated request may cost together before the run stops with PCTL5013')
            [CompletionResult]::new('--max-requests', '--max-requests', [CompletionResultType]::ParameterName, 'The most requests one run simulates (counts included); more is PCTL5014')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use colour: auto (a terminal, and NO_COLOR unset), always, never')
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'Settings file [default: .policyctl.yaml in the current directory or the nearest parent]. Flags and POLICYCTL_* variables override its values')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Quiet: print findings as one line each, nothing else on stderr')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Quiet: print findings as one line each, nothing else on stderr')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Verbose: also list skipped documents and kinds policyctl does not model')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Verbose: also list skipped documents and kinds policyctl does not model')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'policyctl;test' {
            [CompletionResult]::new('-f', '-f', [CompletionResultType]::ParameterName, 'A manifest file, a directory (read recursively: .yaml, .yml, .json; hidden entries skipped), or - for stdin. Repeatable')
            [CompletionResult]::new('--filename', '--filename', [CompletionResultType]::ParameterName, 'A manifest file, a directory (read recursively: .yaml, .yml, .json; hidden entries skipped), or - for stdin. Repeatable')
            [CompletionResult]::new('--stdin-name', '--stdin-name', [CompletionResultType]::ParameterName, 'Name used for stdin in diagnostics')
            [CompletionResult]::new('-n', '-n', [CompletionResultType]::ParameterName, 'Namespace given to namespaced objects that have none (like kubectl apply)')
            [CompletionResult]::new('--namespace', '--namespace', [CompletionResultType]::ParameterName, 'Namespace given to namespaced objects that have none (like kubectl apply)')
            [CompletionResult]::new('--kuadrant-version', '--kuadrant-version', [CompletionResultType]::ParameterName, 'Kuadrant operator release line to emulate [default: 1.5, the newest, or kuadrantVersion in the settings file]')
            [CompletionResult]::new('--gateway-class', '--gateway-class', [CompletionResultType]::ParameterName, 'Assume a GatewayClass the input does not define has this controllerName (repeatable). Built in: istio=istio.io/gateway-controller, eg=gateway.envoyproxy.io/gatewayclass-controller, envoy-gateway=gateway.envoyproxy.io/gatewayclass-controller; also gatewayClasses in the settings file')
            [CompletionResult]::new('--validate', '--validate', [CompletionResultType]::ParameterName, 'Fields a kind''s schema does not declare, as kubectl apply''s --validate: strict refuses the object (the default), warn drops the field with a warning, ignore drops it silently [also validate in the settings file]')
            [CompletionResult]::new('--max-input-bytes', '--max-input-bytes', [CompletionResultType]::ParameterName, 'The most bytes the run reads, files and streams together (watch: every cycle); the input that would go beyond it and those after it are left out with PCTL1019, exit 2')
            [CompletionResult]::new('--max-documents', '--max-documents', [CompletionResultType]::ParameterName, 'The most documents the run reads (YAML documents, objects of a JSON stream, items of a List; watch: every cycle); those from the first beyond it are left out with PCTL1019, exit 2')
            [CompletionResult]::new('--max-paths', '--max-paths', [CompletionResultType]::ParameterName, 'The most paths (class → gateway → listener → route → rule) the run computes; routes beyond it are left out with PCTL1019, exit 2')
            [CompletionResult]::new('--max-action-sets', '--max-action-sets', [CompletionResultType]::ParameterName, 'The most wasm action sets (a path''s hostnames × its rule''s matches) the run computes; routes beyond it are left out with PCTL1019, exit 2')
            [CompletionResult]::new('-o', '-o', [CompletionResultType]::ParameterName, 'Output: text (a line per case and a summary) or junit (XML)')
            [CompletionResult]::new('--output', '--output', [CompletionResultType]::ParameterName, 'Output: text (a line per case and a summary) or junit (XML)')
            [CompletionResult]::new('--jwks', '--jwks', [CompletionResultType]::ParameterName, 'A JWKS document JWT signatures are verified against (as simulate''s --jwks). Repeatable')
            [CompletionResult]::new('--cel-cost-limit', '--cel-cost-limit', [CompletionResultType]::ParameterName, 'The most one evaluation of a CEL expression or a Rego policy may cost (cel-go''s cost units; regorus''s work units for Rego) before the run stops with PCTL5013')
            [CompletionResult]::new('--request-cost-limit', '--request-cost-limit', [CompletionResultType]::ParameterName, 'The most every evaluation of one simulated request may cost together before the run stops with PCTL5013')
            [CompletionResult]::new('--max-requests', '--max-requests', [CompletionResultType]::ParameterName, 'The most requests one run simulates (counts included); more is PCTL5014')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use colour: auto (a terminal, and NO_COLOR unset), always, never')
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'Settings file [default: .policyctl.yaml in the current directory or the nearest parent]. Flags and POLICYCTL_* variables override its values')
            [CompletionResult]::new('--accept-undecided', '--accept-undecided', [CompletionResultType]::ParameterName, 'Exit 0 when no case failed even if some were undecided (a request whose verdict needs a live server): they are still reported, and skipped in JUnit')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Quiet: print findings as one line each, nothing else on stderr')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Quiet: print findings as one line each, nothing else on stderr')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Verbose: also list skipped documents and kinds policyctl does not model')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Verbose: also list skipped documents and kinds policyctl does not model')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'policyctl;watch' {
            [CompletionResult]::new('-f', '-f', [CompletionResultType]::ParameterName, 'A manifest file, a directory (read recursively: .yaml, .yml, .json; hidden entries skipped), or - for stdin. Repeatable')
            [CompletionResult]::new('--filename', '--filename', [CompletionResultType]::ParameterName, 'A manifest file, a directory (read recursively: .yaml, .yml, .json; hidden entries skipped), or - for stdin. Repeatable')
            [CompletionResult]::new('--stdin-name', '--stdin-name', [CompletionResultType]::ParameterName, 'Name used for stdin in diagnostics')
            [CompletionResult]::new('-n', '-n', [CompletionResultType]::ParameterName, 'Namespace given to namespaced objects that have none (like kubectl apply)')
            [CompletionResult]::new('--namespace', '--namespace', [CompletionResultType]::ParameterName, 'Namespace given to namespaced objects that have none (like kubectl apply)')
            [CompletionResult]::new('--kuadrant-version', '--kuadrant-version', [CompletionResultType]::ParameterName, 'Kuadrant operator release line to emulate [default: 1.5, the newest, or kuadrantVersion in the settings file]')
            [CompletionResult]::new('--gateway-class', '--gateway-class', [CompletionResultType]::ParameterName, 'Assume a GatewayClass the input does not define has this controllerName (repeatable). Built in: istio=istio.io/gateway-controller, eg=gateway.envoyproxy.io/gatewayclass-controller, envoy-gateway=gateway.envoyproxy.io/gatewayclass-controller; also gatewayClasses in the settings file')
            [CompletionResult]::new('--validate', '--validate', [CompletionResultType]::ParameterName, 'Fields a kind''s schema does not declare, as kubectl apply''s --validate: strict refuses the object (the default), warn drops the field with a warning, ignore drops it silently [also validate in the settings file]')
            [CompletionResult]::new('--max-input-bytes', '--max-input-bytes', [CompletionResultType]::ParameterName, 'The most bytes the run reads, files and streams together (watch: every cycle); the input that would go beyond it and those after it are left out with PCTL1019, exit 2')
            [CompletionResult]::new('--max-documents', '--max-documents', [CompletionResultType]::ParameterName, 'The most documents the run reads (YAML documents, objects of a JSON stream, items of a List; watch: every cycle); those from the first beyond it are left out with PCTL1019, exit 2')
            [CompletionResult]::new('--max-paths', '--max-paths', [CompletionResultType]::ParameterName, 'The most paths (class → gateway → listener → route → rule) the run computes; routes beyond it are left out with PCTL1019, exit 2')
            [CompletionResult]::new('--max-action-sets', '--max-action-sets', [CompletionResultType]::ParameterName, 'The most wasm action sets (a path''s hostnames × its rule''s matches) the run computes; routes beyond it are left out with PCTL1019, exit 2')
            [CompletionResult]::new('--only', '--only', [CompletionResultType]::ParameterName, 'Only these object families (comma-separated): wasm, envoyfilter, limitador, authconfig, envoygateway, certificate, dnsrecord, extension')
            [CompletionResult]::new('--gateway', '--gateway', [CompletionResultType]::ParameterName, 'Only paths through this gateway')
            [CompletionResult]::new('--wasm-sha256', '--wasm-sha256', [CompletionResultType]::ParameterName, 'sha256 of the wasm module the 1.5 operator serves (written into the wasm EnvoyFilter) [default: empty; the operator computes it from the module at run time]')
            [CompletionResult]::new('--wasm-image', '--wasm-image', [CompletionResultType]::ParameterName, 'wasm-shim image (default: the image of the emulated operator release)')
            [CompletionResult]::new('--kuadrant-namespace', '--kuadrant-namespace', [CompletionResultType]::ParameterName, 'Namespace used when the input has no Kuadrant object [default: kuadrant-system]')
            [CompletionResult]::new('--istio-controller-names', '--istio-controller-names', [CompletionResultType]::ParameterName, 'GatewayClass controller names handled as Istio (comma-separated; the default is appended)')
            [CompletionResult]::new('--envoy-gateway-controller-names', '--envoy-gateway-controller-names', [CompletionResultType]::ParameterName, 'GatewayClass controller names handled as Envoy Gateway (comma-separated; the default is appended)')
            [CompletionResult]::new('--out-dir', '--out-dir', [CompletionResultType]::ParameterName, 'Keep this folder in sync with the generated objects, as `compute --out-dir` does (atomic writes, prune, marker line), writing only the files that changed')
            [CompletionResult]::new('--lock-timeout', '--lock-timeout', [CompletionResultType]::ParameterName, 'With --out-dir: seconds to wait for another policyctl run writing the same folder to finish (0: do not wait) [default: 300]')
            [CompletionResult]::new('--debounce', '--debounce', [CompletionResultType]::ParameterName, 'Milliseconds without events before a cycle starts (an editor''s save is several events; at most an hour)')
            [CompletionResult]::new('--resync', '--resync', [CompletionResultType]::ParameterName, 'Also recompute everything from scratch every SECS seconds (the state must not change)')
            [CompletionResult]::new('--cycles', '--cycles', [CompletionResultType]::ParameterName, 'Stop after N cycles that recomputed (the first, initial one included); for scripts and tests')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use colour: auto (a terminal, and NO_COLOR unset), always, never')
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'Settings file [default: .policyctl.yaml in the current directory or the nearest parent]. Flags and POLICYCTL_* variables override its values')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Quiet: print findings as one line each, nothing else on stderr')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Quiet: print findings as one line each, nothing else on stderr')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Verbose: also list skipped documents and kinds policyctl does not model')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Verbose: also list skipped documents and kinds policyctl does not model')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('status', 'status', [CompletionResultType]::ParameterValue, 'Every policy''s predicted status after each cycle')
            [CompletionResult]::new('lint', 'lint', [CompletionResultType]::ParameterValue, 'Every finding after each cycle')
            [CompletionResult]::new('explain', 'explain', [CompletionResultType]::ParameterValue, 'A target''s paths after each cycle (TARGET as for `policyctl explain`)')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'policyctl;watch;status' {
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use colour: auto (a terminal, and NO_COLOR unset), always, never')
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'Settings file [default: .policyctl.yaml in the current directory or the nearest parent]. Flags and POLICYCTL_* variables override its values')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Quiet: print findings as one line each, nothing else on stderr')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Quiet: print findings as one line each, nothing else on stderr')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Verbose: also list skipped documents and kinds policyctl does not model')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Verbose: also list skipped documents and kinds policyctl does not model')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'policyctl;watch;lint' {
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use colour: auto (a terminal, and NO_COLOR unset), always, never')
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'Settings file [default: .policyctl.yaml in the current directory or the nearest parent]. Flags and POLICYCTL_* variables override its values')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Quiet: print findings as one line each, nothing else on stderr')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Quiet: print findings as one line each, nothing else on stderr')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Verbose: also list skipped documents and kinds policyctl does not model')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Verbose: also list skipped documents and kinds policyctl does not model')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'policyctl;watch;explain' {
            [CompletionResult]::new('--kind', '--kind', [CompletionResultType]::ParameterName, 'Only this policy kind (RateLimitPolicy, AuthPolicy, TokenRateLimitPolicy)')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use colour: auto (a terminal, and NO_COLOR unset), always, never')
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'Settings file [default: .policyctl.yaml in the current directory or the nearest parent]. Flags and POLICYCTL_* variables override its values')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Quiet: print findings as one line each, nothing else on stderr')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Quiet: print findings as one line each, nothing else on stderr')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Verbose: also list skipped documents and kinds policyctl does not model')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Verbose: also list skipped documents and kinds policyctl does not model')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'policyctl;watch;help' {
            [CompletionResult]::new('status', 'status', [CompletionResultType]::ParameterValue, 'Every policy''s predicted status after each cycle')
            [CompletionResult]::new('lint', 'lint', [CompletionResultType]::ParameterValue, 'Every finding after each cycle')
            [CompletionResult]::new('explain', 'explain', [CompletionResultType]::ParameterValue, 'A target''s paths after each cycle (TARGET as for `policyctl explain`)')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'policyctl;watch;help;status' {
            break
        }
        'policyctl;watch;help;lint' {
            break
        }
        'policyctl;watch;help;explain' {
            break
        }
        'policyctl;watch;help;help' {
            break
        }
        'policyctl;completions' {
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use colour: auto (a terminal, and NO_COLOR unset), always, never')
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'Settings file [default: .policyctl.yaml in the current directory or the nearest parent]. Flags and POLICYCTL_* variables override its values')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Quiet: print findings as one line each, nothing else on stderr')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Quiet: print findings as one line each, nothing else on stderr')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Verbose: also list skipped documents and kinds policyctl does not model')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Verbose: also list skipped documents and kinds policyctl does not model')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'policyctl;version' {
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use colour: auto (a terminal, and NO_COLOR unset), always, never')
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'Settings file [default: .policyctl.yaml in the current directory or the nearest parent]. Flags and POLICYCTL_* variables override its values')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Quiet: print findings as one line each, nothing else on stderr')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Quiet: print findings as one line each, nothing else on stderr')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Verbose: also list skipped documents and kinds policyctl does not model')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Verbose: also list skipped documents and kinds policyctl does not model')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'policyctl;help' {
            [CompletionResult]::new('compute', 'compute', [CompletionResultType]::ParameterValue, 'Print the objects the operator would generate (WasmPlugin/EnvoyFilter, Limitador, AuthConfigs, ...)')
            [CompletionResult]::new('diff', 'diff', [CompletionResultType]::ParameterValue, 'Show what would change: generated objects against current ones, or between two input trees')
            [CompletionResult]::new('graph', 'graph', [CompletionResultType]::ParameterValue, 'Draw the topology (DOT, Mermaid or JSON), policies included')
            [CompletionResult]::new('status', 'status', [CompletionResultType]::ParameterValue, 'Predict every policy''s Accepted and Enforced conditions')
            [CompletionResult]::new('explain', 'explain', [CompletionResultType]::ParameterValue, 'Explain, for each path through a target, which policy rule won and why')
            [CompletionResult]::new('lint', 'lint', [CompletionResultType]::ParameterValue, 'Report every diagnostic: schema and CEL validation, references, merge outcomes')
            [CompletionResult]::new('audit', 'audit', [CompletionResultType]::ParameterValue, 'Audit coverage: paths without authentication or rate limiting, limits that never decide, shared counters; with --base, what a change takes away')
            [CompletionResult]::new('simulate', 'simulate', [CompletionResultType]::ParameterValue, 'Trace a request through gateway, route, wasm actions, AuthConfig and Limitador')
            [CompletionResult]::new('test', 'test', [CompletionResultType]::ParameterValue, 'Run test cases (requests and expected verdicts) against the simulated estate')
            [CompletionResult]::new('watch', 'watch', [CompletionResultType]::ParameterValue, 'Watch the input files: recompute on every change and print what changed (objects, status, findings); keep --out-dir in sync')
            [CompletionResult]::new('completions', 'completions', [CompletionResultType]::ParameterValue, 'Print shell completions')
            [CompletionResult]::new('version', 'version', [CompletionResultType]::ParameterValue, 'Print policyctl''s version, the operator releases it emulates and what they ship')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'policyctl;help;compute' {
            break
        }
        'policyctl;help;diff' {
            break
        }
        'policyctl;help;graph' {
            break
        }
        'policyctl;help;status' {
            break
        }
        'policyctl;help;explain' {
            break
        }
        'policyctl;help;lint' {
            break
        }
        'policyctl;help;audit' {
            break
        }
        'policyctl;help;simulate' {
            break
        }
        'policyctl;help;test' {
            break
        }
        'policyctl;help;watch' {
            [CompletionResult]::new('status', 'status', [CompletionResultType]::ParameterValue, 'Every policy''s predicted status after each cycle')
            [CompletionResult]::new('lint', 'lint', [CompletionResultType]::ParameterValue, 'Every finding after each cycle')
            [CompletionResult]::new('explain', 'explain', [CompletionResultType]::ParameterValue, 'A target''s paths after each cycle (TARGET as for `policyctl explain`)')
            break
        }
        'policyctl;help;watch;status' {
            break
        }
        'policyctl;help;watch;lint' {
            break
        }
        'policyctl;help;watch;explain' {
            break
        }
        'policyctl;help;completions' {
            break
        }
        'policyctl;help;version' {
            break
        }
        'policyctl;help;help' {
            break
        }
    })

    $completions.Where{ $_.CompletionText -like "$wordToComplete*" } |
        Sort-Object -Property ListItemText
}
