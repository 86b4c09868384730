"""OCR of scanned pages and photos, behind one small interface: lines with boxes and
confidences (`lines.OcrLine`, `lines.OcrPage`), laid out as text for the field extractors.

Two backends:

* `rapid`: PP-OCR (detection, recognition; models shipped inside the `rapidocr` wheel, run by
  ONNX Runtime with one thread per engine, at most one engine per core);
* `tesseract`: the tesseract command with the configured language packs.

`reader.OcrReader` picks per page by `EngineConfig.ocr` ("auto" | "rapidocr" | "tesseract"):
see reader.py, and docs/engine-ocr.md for which runs when and the measurements behind it.
"""
