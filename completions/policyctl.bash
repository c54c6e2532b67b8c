_policyctl() {
    local i cur prev opts cmd
    COMPREPLY=()
    if [[ "${BASH_VERSINFO[0]}" -ge 4 ]]; then
        cur="$2"
    else
        cur="${COMP_WORDS[COMP_CWORD]}"
    fi
    prev="$3"
    cmd=""
    opts=""

    for i in "${COMP_WORDS[@]:0:COMP_CWORD}"
    do
        case "${cmd},${i}" in
            ",$1")
                cmd="policyctl"
                ;;
            policyctl,audit)
                cmd="policyctl__subcmd__audit"
                ;;
            policyctl,completions)
                cmd="policyctl__subcmd__completions"
                ;;
            policyctl,compute)
                cmd="policyctl__subcmd__compute"
                ;;
            policyctl,diff)
                cmd="policyctl__subcmd__diff"
                ;;
            policyctl,explain)
                cmd="policyctl__subcmd__explain"
                ;;
            policyctl,graph)
                cmd="policyctl__subcmd__graph"
                ;;
            policyctl,help)
                cmd="policyctl__subcmd__help"
                ;;
            policyctl,lint)
                cmd="policyctl__subcmd__lint"
                ;;
            policyctl,simulate)
                cmd="policyctl__subcmd__simulate"
                ;;
            policyctl,status)
                cmd="policyctl__subcmd__status"
                ;;
            policyctl,test)
                cmd="policyctl__subcmd__test"
                ;;
            policyctl,version)
                cmd="policyctl__subcmd__version"
                ;;
            policyctl,watch)
                cmd="policyctl__subcmd__watch"
                ;;
            policyctl__subcmd__help,audit)
                cmd="policyctl__subcmd__help__subcmd__audit"
                ;;
            policyctl__subcmd__help,completions)
                cmd="policyctl__subcmd__help__subcmd__completions"
                ;;
            policyctl__subcmd__help,compute)
                cmd="policyctl__subcmd__help__subcmd__compute"
                ;;
            policyctl__subcmd__help,diff)
                cmd="policyctl__subcmd__help__subcmd__diff"
                ;;
            policyctl__subcmd__help,explain)
                cmd="policyctl__subcmd__help__subcmd__explain"
                ;;
            policyctl__subcmd__help,graph)
                cmd="policyctl__subcmd__help__subcmd__graph"
                ;;
            policyctl__subcmd__help,help)
                cmd="policyctl__subcmd__help__subcmd__help"
                ;;
            policyctl__subcmd__help,lint)
                cmd="policyctl__subcmd__help__subcmd__lint"
                ;;
            policyctl__subcmd__help,simulate)
                cmd="policyctl__subcmd__help__subcmd__simulate"
                ;;
            policyctl__subcmd__help,status)
                cmd="policyctl__subcmd__help__subcmd__status"
                ;;
            policyctl__subcmd__help,test)
                cmd="policyctl__subcmd__help__subcmd__test"
                ;;
            policyctl__subcmd__help,version)
                cmd="policyctl__subcmd__help__subcmd__version"
                ;;
            policyctl__subcmd__help,watch)
                cmd="policyctl__subcmd__help__subcmd__watch"
                ;;
            policyctl__subcmd__help__subcmd__watch,explain)
                cmd="policyctl__subcmd__help__subcmd__watch__subcmd__explain"
                ;;
            policyctl__subcmd__help__subcmd__watch,lint)
                cmd="policyctl__subcmd__help__subcmd__watch__subcmd__lint"
                ;;
            policyctl__subcmd__help__subcmd__watch,status)
                cmd="policyctl__subcmd__help__subcmd__watch__subcmd__status"
                ;;
            policyctl__subcmd__watch,explain)
                cmd="policyctl__subcmd__watch__subcmd__explain"
                ;;
            policyctl__subcmd__watch,help)
                cmd="policyctl__subcmd__watch__subcmd__help"
                ;;
            policyctl__subcmd__watch,lint)
                cmd="policyctl__subcmd__watch__subcmd__lint"
                ;;
            policyctl__subcmd__watch,status)
                cmd="policyctl__subcmd__watch__subcmd__status"
                ;;
            policyctl__subcmd__watch__subcmd__help,explain)
                cmd="policyctl__subcmd__watch__subcmd__help__subcmd__explain"
                ;;
            policyctl__subcmd__watch__subcmd__help,help)
                cmd="policyctl__subcmd__watch__subcmd__help__subcmd__help"
                ;;
            policyctl__subcmd__watch__subcmd__help,lint)
                cmd="policyctl__subcmd__watch__subcmd__help__subcmd__lint"
                ;;
            policyctl__subcmd__watch__subcmd__help,status)
                cmd="policyctl__subcmd__watch__subcmd__help__subcmd__status"
                ;;
            *)
                ;;
        esac
    done

    case "${cmd}" in
        policyctl)
            opts="-q -v -h -V --color --quiet --verbose --config --help --version compute diff graph status explain lint audit simulate test watch completions version help"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 1 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --color)
                    COMPREPLY=($(compgen -W "auto always never" -- "${cur}"))
                    return 0
                    ;;
                --config)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        policyctl__subcmd__audit)
            opts="-f -n -o -q -v -h -V --filename --stdin-name --namespace --kuadrant-version --gateway-class --validate --max-input-bytes --max-documents --max-paths --max-action-sets --diagnostics-format --diagnostics-file --output --require --base --fail-on --color --quiet --verbose --config --help --version"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 2 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --filename)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                -f)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --stdin-name)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --namespace)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                -n)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --kuadrant-version)
                    COMPREPLY=($(compgen -W "1.4 1.5" -- "${cur}"))
                    return 0
                    ;;
                --gateway-class)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --validate)
                    COMPREPLY=($(compgen -W "strict warn ignore" -- "${cur}"))
                    return 0
                    ;;
                --max-input-bytes)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --max-documents)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --max-paths)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --max-action-sets)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --diagnostics-format)
                    COMPREPLY=($(compgen -W "text json github sarif junit" -- "${cur}"))
                    return 0
                    ;;
                --diagnostics-file)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --output)
                    COMPREPLY=($(compgen -W "table json markdown sarif" -- "${cur}"))
                    return 0
                    ;;
                -o)
                    COMPREPLY=($(compgen -W "table json markdown sarif" -- "${cur}"))
                    return 0
                    ;;
                --require)
                    COMPREPLY=($(compgen -W "auth ratelimit" -- "${cur}"))
                    return 0
                    ;;
                --base)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --fail-on)
                    COMPREPLY=($(compgen -W "error warning never" -- "${cur}"))
                    return 0
                    ;;
                --color)
                    COMPREPLY=($(compgen -W "auto always never" -- "${cur}"))
                    return 0
                    ;;
                --config)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        policyctl__subcmd__completions)
            opts="-q -v -h -V --color --quiet --verbose --config --help --version bash elvish fish powershell zsh"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 2 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --color)
                    COMPREPLY=($(compgen -W "auto always never" -- "${cur}"))
                    return 0
                    ;;
                --config)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        policyctl__subcmd__compute)
            opts="-f -n -o -q -v -h -V --filename --stdin-name --namespace --kuadrant-version --gateway-class --validate --max-input-bytes --max-documents --max-paths --max-action-sets --diagnostics-format --diagnostics-file --output --only --gateway --wasm-sha256 --wasm-image --kuadrant-namespace --istio-controller-names --envoy-gateway-controller-names --out-dir --check --lock-timeout --fail-on --color --quiet --verbose --config --help --version"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 2 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --filename)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                -f)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --stdin-name)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --namespace)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                -n)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --kuadrant-version)
                    COMPREPLY=($(compgen -W "1.4 1.5" -- "${cur}"))
                    return 0
                    ;;
                --gateway-class)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --validate)
                    COMPREPLY=($(compgen -W "strict warn ignore" -- "${cur}"))
                    return 0
                    ;;
                --max-input-bytes)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --max-documents)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --max-paths)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --max-action-sets)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --diagnostics-format)
                    COMPREPLY=($(compgen -W "text json github sarif junit" -- "${cur}"))
                    return 0
                    ;;
                --diagnostics-file)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --output)
                    COMPREPLY=($(compgen -W "yaml json" -- "${cur}"))
                    return 0
                    ;;
                -o)
                    COMPREPLY=($(compgen -W "yaml json" -- "${cur}"))
                    return 0
                    ;;
                --only)
                    COMPREPLY=($(compgen -W "wasm envoyfilter limitador authconfig envoygateway certificate dnsrecord extension" -- "${cur}"))
                    return 0
                    ;;
                --gateway)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --wasm-sha256)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --wasm-image)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --kuadrant-namespace)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --istio-controller-names)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --envoy-gateway-controller-names)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --out-dir)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --lock-timeout)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --fail-on)
                    COMPREPLY=($(compgen -W "error warning never" -- "${cur}"))
                    return 0
                    ;;
                --color)
                    COMPREPLY=($(compgen -W "auto always never" -- "${cur}"))
                    return 0
                    ;;
                --config)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        policyctl__subcmd__diff)
            opts="-f -n -o -q -v -h -V --filename --stdin-name --namespace --kuadrant-version --gateway-class --validate --max-input-bytes --max-documents --max-paths --max-action-sets --diagnostics-format --diagnostics-file --against --base --output --context --only --gateway --wasm-sha256 --wasm-image --kuadrant-namespace --istio-controller-names --envoy-gateway-controller-names --color --quiet --verbose --config --help --version"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 2 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --filename)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                -f)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --stdin-name)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --namespace)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                -n)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --kuadrant-version)
                    COMPREPLY=($(compgen -W "1.4 1.5" -- "${cur}"))
                    return 0
                    ;;
                --gateway-class)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --validate)
                    COMPREPLY=($(compgen -W "strict warn ignore" -- "${cur}"))
                    return 0
                    ;;
                --max-input-bytes)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --max-documents)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --max-paths)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --max-action-sets)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --diagnostics-format)
                    COMPREPLY=($(compgen -W "text json github sarif junit" -- "${cur}"))
                    return 0
                    ;;
                --diagnostics-file)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --against)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --base)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --output)
                    COMPREPLY=($(compgen -W "unified stat json markdown" -- "${cur}"))
                    return 0
                    ;;
                -o)
                    COMPREPLY=($(compgen -W "unified stat json markdown" -- "${cur}"))
                    return 0
                    ;;
                --context)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --only)
                    COMPREPLY=($(compgen -W "wasm envoyfilter limitador authconfig envoygateway certificate dnsrecord extension" -- "${cur}"))
                    return 0
                    ;;
                --gateway)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --wasm-sha256)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --wasm-image)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --kuadrant-namespace)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --istio-controller-names)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --envoy-gateway-controller-names)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --color)
                    COMPREPLY=($(compgen -W "auto always never" -- "${cur}"))
                    return 0
                    ;;
                --config)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        policyctl__subcmd__explain)
            opts="-f -n -o -q -v -h -V --filename --stdin-name --namespace --kuadrant-version --gateway-class --validate --max-input-bytes --max-documents --max-paths --max-action-sets --diagnostics-format --diagnostics-file --kind --output --fail-on --color --quiet --verbose --config --help --version"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 2 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --filename)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                -f)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --stdin-name)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --namespace)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                -n)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --kuadrant-version)
                    COMPREPLY=($(compgen -W "1.4 1.5" -- "${cur}"))
                    return 0
                    ;;
                --gateway-class)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --validate)
                    COMPREPLY=($(compgen -W "strict warn ignore" -- "${cur}"))
                    return 0
                    ;;
                --max-input-bytes)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --max-documents)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --max-paths)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --max-action-sets)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --diagnostics-format)
                    COMPREPLY=($(compgen -W "text json github sarif junit" -- "${cur}"))
                    return 0
                    ;;
                --diagnostics-file)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --kind)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --output)
                    COMPREPLY=($(compgen -W "text yaml json" -- "${cur}"))
                    return 0
                    ;;
                -o)
                    COMPREPLY=($(compgen -W "text yaml json" -- "${cur}"))
                    return 0
                    ;;
                --fail-on)
                    COMPREPLY=($(compgen -W "error warning never" -- "${cur}"))
                    return 0
                    ;;
                --color)
                    COMPREPLY=($(compgen -W "auto always never" -- "${cur}"))
                    return 0
                    ;;
                --config)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        policyctl__subcmd__graph)
            opts="-f -n -o -q -v -h -V --filename --stdin-name --namespace --kuadrant-version --gateway-class --validate --max-input-bytes --max-documents --max-paths --max-action-sets --diagnostics-format --diagnostics-file --output --compat --for --fail-on --color --quiet --verbose --config --help --version"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 2 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --filename)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                -f)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --stdin-name)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --namespace)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                -n)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --kuadrant-version)
                    COMPREPLY=($(compgen -W "1.4 1.5" -- "${cur}"))
                    return 0
                    ;;
                --gateway-class)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --validate)
                    COMPREPLY=($(compgen -W "strict warn ignore" -- "${cur}"))
                    return 0
                    ;;
                --max-input-bytes)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --max-documents)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --max-paths)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --max-action-sets)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --diagnostics-format)
                    COMPREPLY=($(compgen -W "text json github sarif junit" -- "${cur}"))
                    return 0
                    ;;
                --diagnostics-file)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --output)
                    COMPREPLY=($(compgen -W "dot mermaid json" -- "${cur}"))
                    return 0
                    ;;
                -o)
                    COMPREPLY=($(compgen -W "dot mermaid json" -- "${cur}"))
                    return 0
                    ;;
                --compat)
                    COMPREPLY=($(compgen -W "policy-machinery" -- "${cur}"))
                    return 0
                    ;;
                --for)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --fail-on)
                    COMPREPLY=($(compgen -W "error warning never" -- "${cur}"))
                    return 0
                    ;;
                --color)
                    COMPREPLY=($(compgen -W "auto always never" -- "${cur}"))
                    return 0
                    ;;
                --config)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        policyctl__subcmd__help)
            opts="compute diff graph status explain lint audit simulate test watch completions version help"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 2 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        policyctl__subcmd__help__subcmd__audit)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        policyctl__subcmd__help__subcmd__completions)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        policyctl__subcmd__help__subcmd__compute)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        policyctl__subcmd__help__subcmd__diff)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        policyctl__subcmd__help__subcmd__explain)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        policyctl__subcmd__help__subcmd__graph)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        policyctl__subcmd__help__subcmd__help)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        policyctl__subcmd__help__subcmd__lint)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        policyctl__subcmd__help__subcmd__simulate)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        policyctl__subcmd__help__subcmd__status)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        policyctl__subcmd__help__subcmd__test)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        policyctl__subcmd__help__subcmd__version)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        policyctl__subcmd__help__subcmd__watch)
            opts="status lint explain"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        policyctl__subcmd__help__subcmd__watch__subcmd__explain)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        policyctl__subcmd__help__subcmd__watch__subcmd__lint)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        policyctl__subcmd__help__subcmd__watch__subcmd__status)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        policyctl__subcmd__lint)
            opts="-f -n -o -q -v -h -V --filename --stdin-name --namespace --kuadrant-version --gateway-class --validate --max-input-bytes --max-documents --max-paths --max-action-sets --output --fail-on --color --quiet --verbose --config --help --version"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 2 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --filename)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                -f)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --stdin-name)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --namespace)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                -n)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --kuadrant-version)
                    COMPREPLY=($(compgen -W "1.4 1.5" -- "${cur}"))
                    return 0
                    ;;
                --gateway-class)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --validate)
                    COMPREPLY=($(compgen -W "strict warn ignore" -- "${cur}"))
                    return 0
                    ;;
                --max-input-bytes)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --max-documents)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --max-paths)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --max-action-sets)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --output)
                    COMPREPLY=($(compgen -W "text json github sarif junit" -- "${cur}"))
                    return 0
                    ;;
                -o)
                    COMPREPLY=($(compgen -W "text json github sarif junit" -- "${cur}"))
                    return 0
                    ;;
                --fail-on)
                    COMPREPLY=($(compgen -W "error warning never" -- "${cur}"))
                    return 0
                    ;;
                --color)
                    COMPREPLY=($(compgen -W "auto always never" -- "${cur}"))
                    return 0
                    ;;
                --config)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        policyctl__subcmd__simulate)
            opts="-f -n -X -H -o -q -v -h -V --filename --stdin-name --namespace --kuadrant-version --gateway-class --validate --max-input-bytes --max-documents --max-paths --max-action-sets --requests --request --header --identity --source --tokens --response-body --assume --jwks --connect-to --count --interval --gateway --output --cel-cost-limit --request-cost-limit --max-requests --color --quiet --verbose --config --help --version"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 2 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --filename)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                -f)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --stdin-name)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --namespace)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                -n)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --kuadrant-version)
                    COMPREPLY=($(compgen -W "1.4 1.5" -- "${cur}"))
                    return 0
                    ;;
                --gateway-class)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --validate)
                    COMPREPLY=($(compgen -W "strict warn ignore" -- "${cur}"))
                    return 0
                    ;;
                --max-input-bytes)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --max-documents)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --max-paths)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --max-action-sets)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --requests)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --request)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                -X)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --header)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                -H)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --identity)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --source)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --tokens)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --response-body)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --assume)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --jwks)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --connect-to)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --count)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --interval)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --gateway)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --output)
                    COMPREPLY=($(compgen -W "text json" -- "${cur}"))
                    return 0
                    ;;
                -o)
                    COMPREPLY=($(compgen -W "text json" -- "${cur}"))
                    return 0
                    ;;
                --cel-cost-limit)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --request-cost-limit)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --max-requests)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --color)
                    COMPREPLY=($(compgen -W "auto always never" -- "${cur}"))
                    return 0
                    ;;
                --config)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        policyctl__subcmd__status)
            opts="-f -n -o -q -v -h -V --filename --stdin-name --namespace --kuadrant-version --gateway-class --validate --max-input-bytes --max-documents --max-paths --max-action-sets --diagnostics-format --diagnostics-file --output --respect-status --routes --gateways --fail-on --color --quiet --verbose --config --help --version"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 2 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --filename)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                -f)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --stdin-name)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --namespace)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                -n)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --kuadrant-version)
                    COMPREPLY=($(compgen -W "1.4 1.5" -- "${cur}"))
                    return 0
                    ;;
                --gateway-class)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --validate)
                    COMPREPLY=($(compgen -W "strict warn ignore" -- "${cur}"))
                    return 0
                    ;;
                --max-input-bytes)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --max-documents)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --max-paths)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --max-action-sets)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --diagnostics-format)
                    COMPREPLY=($(compgen -W "text json github sarif junit" -- "${cur}"))
                    return 0
                    ;;
                --diagnostics-file)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --output)
                    COMPREPLY=($(compgen -W "table wide yaml json" -- "${cur}"))
                    return 0
                    ;;
                -o)
                    COMPREPLY=($(compgen -W "table wide yaml json" -- "${cur}"))
                    return 0
                    ;;
                --fail-on)
                    COMPREPLY=($(compgen -W "error warning never" -- "${cur}"))
                    return 0
                    ;;
                --color)
                    COMPREPLY=($(compgen -W "auto always never" -- "${cur}"))
                    return 0
                    ;;
                --config)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        policyctl__subcmd__test)
            opts="-f -n -o -q -v -h -V --filename --stdin-name --namespace --kuadrant-version --gateway-class --validate --max-input-bytes --max-documents --max-paths --max-action-sets --output --accept-undecided --jwks --cel-cost-limit --request-cost-limit --max-requests --color --quiet --verbose --config --help --version"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 2 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --filename)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                -f)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --stdin-name)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --namespace)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                -n)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --kuadrant-version)
                    COMPREPLY=($(compgen -W "1.4 1.5" -- "${cur}"))
                    return 0
                    ;;
                --gateway-class)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --validate)
                    COMPREPLY=($(compgen -W "strict warn ignore" -- "${cur}"))
                    return 0
                    ;;
                --max-input-bytes)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --max-documents)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --max-paths)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --max-action-sets)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --output)
                    COMPREPLY=($(compgen -W "text junit" -- "${cur}"))
                    return 0
                    ;;
                -o)
                    COMPREPLY=($(compgen -W "text junit" -- "${cur}"))
                    return 0
                    ;;
                --jwks)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --cel-cost-limit)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --request-cost-limit)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --max-requests)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --color)
                    COMPREPLY=($(compgen -W "auto always never" -- "${cur}"))
                    return 0
                    ;;
                --config)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        policyctl__subcmd__version)
            opts="-q -v -h -V --color --quiet --verbose --config --help --version"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 2 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --color)
                    COMPREPLY=($(compgen -W "auto always never" -- "${cur}"))
                    return 0
                    ;;
                --config)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        policyctl__subcmd__watch)
            opts="-f -n -q -v -h -V --filename --stdin-name --namespace --kuadrant-version --gateway-class --validate --max-input-bytes --max-documents --max-paths --max-action-sets --only --gateway --wasm-sha256 --wasm-image --kuadrant-namespace --istio-controller-names --envoy-gateway-controller-names --out-dir --lock-timeout --debounce --resync --cycles --color --quiet --verbose --config --help --version status lint explain help"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 2 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --filename)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                -f)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --stdin-name)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --namespace)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                -n)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --kuadrant-version)
                    COMPREPLY=($(compgen -W "1.4 1.5" -- "${cur}"))
                    return 0
                    ;;
                --gateway-class)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --validate)
                    COMPREPLY=($(compgen -W "strict warn ignore" -- "${cur}"))
                    return 0
                    ;;
                --max-input-bytes)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --max-documents)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --max-paths)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --max-action-sets)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --only)
                    COMPREPLY=($(compgen -W "wasm envoyfilter limitador authconfig envoygateway certificate dnsrecord extension" -- "${cur}"))
                    return 0
                    ;;
                --gateway)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --wasm-sha256)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --wasm-image)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --kuadrant-namespace)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --istio-controller-names)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --envoy-gateway-controller-names)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --out-dir)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --lock-timeout)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --debounce)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --resync)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --cycles)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --color)
                    COMPREPLY=($(compgen -W "auto always never" -- "${cur}"))
                    return 0
                    ;;
                --config)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        policyctl__subcmd__watch__subcmd__explain)
            opts="-q -v -h -V --kind --color --quiet --verbose --config --help --version"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --kind)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --color)
                    COMPREPLY=($(compgen -W "auto always never" -- "${cur}"))
                    return 0
                    ;;
                --config)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        policyctl__subcmd__watch__subcmd__help)
            opts="status lint explain help"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        policyctl__subcmd__watch__subcmd__help__subcmd__explain)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        policyctl__subcmd__watch__subcmd__help__subcmd__help)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        policyctl__subcmd__watch__subcmd__help__subcmd__lint)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        policyctl__subcmd__watch__subcmd__help__subcmd__status)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        policyctl__subcmd__watch__subcmd__lint)
            opts="-q -v -h -V --color --quiet --verbose --config --help --version"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --color)
                    COMPREPLY=($(compgen -W "auto always never" -- "${cur}"))
                    return 0
                    ;;
                --config)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        policyctl__subcmd__watch__subcmd__status)
            opts="-q -v -h -V --color --quiet --verbose --config --help --version"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --color)
                    COMPREPLY=($(compgen -W "auto always never" -- "${cur}"))
                    return 0
                    ;;
                --config)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
    esac
}

if [[ "${BASH_VERSINFO[0]}" -eq 4 && "${BASH_VERSINFO[1]}" -ge 4 || "${BASH_VERSINFO[0]}" -gt 4 ]]; then
    complete -F _policyctl -o nosort -o bashdefault -o default policyctl
else
    complete -F _policyctl -o bashdefault -o default policyctl
fi
