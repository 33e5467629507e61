package session

import "net/http"

// CrossSite reports a POST that a browser sent from another site: by Fetch metadata when the
// browser sends it, else by Origin. With neither (no browser sends one), the session alone judges.
func CrossSite(r *http.Request) bool {
	if site := r.Header.Get("Sec-Fetch-Site"); site != "" {
		return site != "same-origin" && site != "none"
	}
	if origin := r.Header.Get("Origin"); origin != "" {
		return origin != Origin(r)
	}
	return false
}

// Origin is the console's own origin as the browser sees it.
func Origin(r *http.Request) string {
	scheme := "http"
	if r.TLS != nil {
		scheme = "https"
	}
	if p := r.Header.Get("X-Forwarded-Proto"); p == "https" || p == "http" {
		scheme = p
	}
	return scheme + "://" + r.Host
}
