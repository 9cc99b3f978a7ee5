"""What the page, the PDF, the workbook and the command line share: wording, charts (Plotly
figures and their SVG drawing) and the Excel model."""
