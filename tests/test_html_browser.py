"""The HTML report in a real browser: Debian's headless Chromium, driven by selenium.

The page is opened from a file URL with the network blocked (every host name
resolves to nothing) and with the browser's own network log recording every
request: the page must make none but its own file. Oracles: `assay report
--threshold T` for the confusion matrix the explorer shows at T.

.ci/run (and the README's second line) install Debian's chromium and
chromium-driver; without them these tests fail, unless ASSAY_SKIP_BROWSER is set.
"""

import io
import json
import os
import shutil
import tempfile
from pathlib import Path

import numpy as np
import pytest

import assay
from assay.cli import main
from assay.report.html import render_html

DATA = Path(__file__).parent / "data"
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
DRIVER = shutil.which("chromedriver")


@pytest.fixture(scope="module")
def browser():
    if not (CHROMIUM and DRIVER):
        if os.environ.get("ASSAY_SKIP_BROWSER"):
            pytest.skip("ASSAY_SKIP_BROWSER is set and Chromium is not installed")
        pytest.fail("the browser tests need Debian's chromium and chromium-driver (.ci/run installs them)")
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    profile = tempfile.mkdtemp(prefix="assay-chromium-")
    for arg in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                "--disable-background-networking", "--disable-component-update", "--disable-sync",
                "--disable-dev-shm-usage", "--window-size=1280,1600", f"--user-data-dir={profile}",
                "--host-resolver-rules=MAP * ~NOTFOUND"):
        options.add_argument(arg)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL", "performance": "ALL"})
    driver = webdriver.Chrome(service=Service(DRIVER), options=options)
    driver.execute_cdp_cmd("Network.enable", {})
    driver.execute_cdp_cmd("Network.emulateNetworkConditions", {"offline": True, "latency": 0,
                                                                 "downloadThroughput": 0, "uploadThroughput": 0})
    yield driver
    driver.quit()
    shutil.rmtree(profile, ignore_errors=True)


def open_page(driver, path):
    driver.get_log("browser")  # drop what earlier pages logged
    driver.get_log("performance")
    driver.get(Path(path).as_uri())
    return driver


def requests_made(driver):
    urls = []
    for entry in driver.get_log("performance"):
        message = json.loads(entry["message"])["message"]
        if message.get("method") == "Network.requestWillBeSent":
            urls.append(message["params"]["request"]["url"])
    return urls


def console_errors(driver):
    return [e for e in driver.get_log("browser") if e["level"] == "SEVERE"]


@pytest.fixture(scope="module")
def report_page(tmp_path_factory):
    path = tmp_path_factory.mktemp("html") / "report.html"
    status = main(["report", str(DATA / "asah.csv"), "--truth", "outcome", "--score", "s100b", "--positive", "Poor",
                   "--threshold", "0.2", "--html", str(path), "--format", "json", "-o", str(path.with_suffix(".json"))])
    assert status == 0
    return path


def test_page_opens_offline_without_errors_or_requests(browser, report_page):
    open_page(browser, report_page)
    assert browser.title == "assay report"
    assert console_errors(browser) == []
    urls = requests_made(browser)
    assert urls and all(u == report_page.as_uri() or u.startswith("data:") for u in urls), urls


def test_screenshot_is_not_blank(browser, report_page):
    from PIL import Image

    open_page(browser, report_page)
    image = np.asarray(Image.open(io.BytesIO(browser.get_screenshot_as_png())).convert("L"), dtype=float)
    assert image.std() > 10  # text, tables and charts, not a blank page
    assert (image < 128).mean() > 0.005


def _explorer_state(driver):
    cells = {c: driver.find_element("css selector", f'#explorer-matrix-0 [data-cell="{c}"]').text.replace(",", "")
             for c in ("tp", "fp", "fn", "tn")}
    threshold = driver.find_element("id", "threshold-value-0").get_attribute("value")
    point = driver.find_element("id", "roc-0-point")
    return {k: int(v) for k, v in cells.items()}, threshold, (point.get_attribute("cx"), point.get_attribute("cy"))


def _matrix_from_cli(threshold):
    """What `assay report --threshold T --format json` gives."""
    out = io.StringIO()
    from contextlib import redirect_stdout

    with redirect_stdout(out):
        status = main(["report", str(DATA / "asah.csv"), "--truth", "outcome", "--score", "s100b", "--positive",
                       "Poor", "--threshold", repr(threshold), "--format", "json", "--bootstrap", "100"])
    assert status == 0
    counts = json.loads(out.getvalue())["confusion"]["actual_by_predicted"]  # rows actual (Good, Poor)
    return {"tn": counts[0][0], "fp": counts[0][1], "fn": counts[1][0], "tp": counts[1][1]}


def test_slider_moves_the_matrix_to_what_assay_report_gives(browser, report_page):
    from selenium.webdriver.common.keys import Keys

    open_page(browser, report_page)
    matrix, threshold, point = _explorer_state(browser)
    assert threshold == "0.2"  # the report's threshold as given, not the score it lands on
    assert matrix == _matrix_from_cli(float(threshold))
    slider = browser.find_element("id", "threshold-slider-0")
    for presses in (3, 5, 9):
        for _ in range(presses):
            slider.send_keys(Keys.ARROW_RIGHT)  # keyboard-operable
        new_matrix, new_threshold, new_point = _explorer_state(browser)
        if new_threshold:
            assert new_matrix == _matrix_from_cli(float(new_threshold))
        assert new_point != point or new_matrix == matrix
        point, matrix = new_point, new_matrix
    slider.send_keys(Keys.HOME)
    matrix, threshold, _ = _explorer_state(browser)
    assert matrix == _matrix_from_cli(float(threshold))
    assert matrix["fn"] == 0 and matrix["tn"] == 0  # the lowest threshold: everything positive
    assert console_errors(browser) == []


def test_typed_threshold_gives_the_exact_matrix(browser, report_page):
    from selenium.webdriver.common.keys import Keys

    open_page(browser, report_page)
    box = browser.find_element("id", "threshold-value-0")
    for value in ("0.1", "0.205", "0.33", "5"):
        box.clear()
        box.send_keys(value, Keys.ENTER)
        matrix, _, _ = _explorer_state(browser)
        assert matrix == _matrix_from_cli(float(value)), value


XSS = ['<script>alert(1)</script>', '"><img src=x onerror="document.title=\'pwned\'">']


def test_labels_from_the_data_render_as_text(browser, tmp_path):
    from selenium.common.exceptions import NoAlertPresentException

    y = np.array([XSS[0], XSS[1]] * 20)
    rng = np.random.default_rng(0)
    scores = np.where(y == XSS[1], 0.7, 0.3) + rng.normal(0, 0.2, len(y))
    result = assay.evaluate(y, y_score=np.clip(scores, 0, 1), positive=XSS[1], bootstrap=100)
    path = tmp_path / "xss.html"
    path.write_text(render_html(result))
    open_page(browser, path)
    with pytest.raises(NoAlertPresentException):
        browser.switch_to.alert.text  # noqa: B018
    assert browser.title == "assay report"
    assert browser.find_elements("css selector", "img") == []
    text = browser.find_element("tag name", "body").text
    assert XSS[0] in text and XSS[1] in text


def test_validate_and_compare_pages(browser, tmp_path):
    v = assay.validate(dataset="breast-cancer", models=["decision-tree", "naive-bayes"], method="cv", folds=5,
                       bootstrap=100)
    path = tmp_path / "validate.html"
    path.write_text(render_html(v))
    open_page(browser, path)
    assert console_errors(browser) == []
    curves = browser.find_elements("css selector", "#roc-models polyline.curve")
    assert len(curves) == 2  # both classifiers on one ROC plane
    assert all(u == path.as_uri() or u.startswith("data:") for u in requests_made(browser))
    # printing: every model's folded section opens, and the page prints to a PDF of several pages
    closed = browser.execute_script("return document.querySelectorAll('details.model:not([open])').length")
    assert closed == 1
    browser.execute_script("window.dispatchEvent(new Event('beforeprint'))")
    assert browser.execute_script("return document.querySelectorAll('details.model:not([open])').length") == 0
    import base64

    from selenium.webdriver.common.print_page_options import PrintOptions

    pdf = base64.b64decode(browser.print_page(PrintOptions()))
    assert pdf.startswith(b"%PDF") and pdf.count(b"/Type /Page") >= 3
