"""The quote app's pages, one module per part (quotes/urls.py maps them):

- access: who may see a page (the sales group; a buyer's signed link), shared by all.
- buyer_page: what the buyer page shows, for the buyer pages and the acceptance form.
- actions: how a page runs a service and says how it went (the service's refusal as a
  message, or on the form shown again), and the quote page's address (detail_url).
- quotes: the quote list and detail, revision actions, customers, the buyer pages and the
  calculator's PDF request.
- leads, lines, payments, acceptance, exports, preview: the lead desk, the line editor,
  payment terms, acceptance with evidence, downloads and the draft's PDF preview.

Each module imports access, actions and buyer_page, never another page module the other way
round.
"""
