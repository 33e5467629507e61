package session

import (
	"net/http"
	"time"
)

// SetCookie sets one of the console's cookies for path (the console's, under its base path):
// HttpOnly, Secure, SameSite=Lax; maxAge 0 makes a browser-session cookie.
func SetCookie(w http.ResponseWriter, path, name, value string, maxAge time.Duration) {
	http.SetCookie(w, &http.Cookie{Name: name, Value: value, Path: path, HttpOnly: true, Secure: true,
		SameSite: http.SameSiteLaxMode, MaxAge: int(maxAge.Seconds())})
}

// ClearCookie removes one of the console's cookies (set for path).
func ClearCookie(w http.ResponseWriter, path, name string) {
	http.SetCookie(w, &http.Cookie{Name: name, Value: "", Path: path, HttpOnly: true, Secure: true,
		SameSite: http.SameSiteLaxMode, MaxAge: -1})
}
