// Package extract finds the main content of an HTML page from anywhere (an
// HTTP body, a browser's rendered DOM, a file) and renders it as markdown,
// text, JSON or the HTML of CSS-selected nodes. It imports no network
// package. Every failure of a page, fetched or extracted, is an *Error.
package extract
