ls # $(rm x)
echo \$(not) '$(nor)' "\$(neither)"\
next line